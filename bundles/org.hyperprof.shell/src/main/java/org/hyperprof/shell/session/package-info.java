/**
 * What a command needs from the command line it was typed at: the working folder its relative
 * paths mean and the environment of what it starts ({@link org.hyperprof.shell.session.WorkingFolder}),
 * the client's when the line came to the resident framework.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.hyperprof.shell.session;
