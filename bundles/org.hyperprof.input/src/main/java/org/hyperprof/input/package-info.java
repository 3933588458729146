/**
 * Files that come from users, read by one set of rules: what a path names is checked before
 * anything opens it ({@link org.hyperprof.input.InputFile}: a FIFO, a device or a directory is
 * refused with the API's {@code NotAFileException}), every reader takes in at most its kind's
 * ceiling ({@link org.hyperprof.input.InputLimit}, past it the API's
 * {@code InputTooLargeException}), and an image's symbol file a user named is opened by those rules
 * ({@link org.hyperprof.input.SymbolFiles}).
 *
 * <p>A kit, not a contract: the errors it throws are the API's, so a resolver or a source that
 * reads files its own way still speaks the same errors.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.input;
