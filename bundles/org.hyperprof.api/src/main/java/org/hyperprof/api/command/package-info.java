/**
 * What a command tells whoever runs it (Gogo's prompt, the launcher's piped session, a script):
 * {@link org.hyperprof.api.command.CommandFailure}, thrown once the command has printed why, with
 * the exit status the launcher ends with. Any bundle's commands throw it, so a usage error of a
 * plug-in's command exits 2 as the shell's own do.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.api.command;
