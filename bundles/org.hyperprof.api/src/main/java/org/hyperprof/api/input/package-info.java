/**
 * Files and text that come from users: what a path names is checked before anything opens it
 * ({@link org.hyperprof.api.input.InputFile}), every reader takes in at most its kind's ceiling
 * ({@link org.hyperprof.api.input.InputLimit}), and text echoed from an input is made visible
 * ({@link org.hyperprof.api.input.VisibleText}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.api.input;
