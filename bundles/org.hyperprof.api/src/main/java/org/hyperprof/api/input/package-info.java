/**
 * The errors of an input Hyperprof will not read, as they cross service boundaries (a resolver or
 * a source throws them, the pipeline and the shell show them): a path that names no regular file
 * ({@link org.hyperprof.api.input.NotAFileException}, with what it names,
 * {@link org.hyperprof.api.input.FileKind}) and content beyond its reader's ceiling
 * ({@link org.hyperprof.api.input.InputTooLargeException}). Their messages show invisible
 * characters as escapes; {@link org.hyperprof.api.input.InputException} builds them, for a format's
 * own errors too (the input, the line or offset, the problem). Reading a user's path by these rules
 * is the {@code org.hyperprof.input} bundle's.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.hyperprof.api.input;
