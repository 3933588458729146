/**
 * Mangled symbol names turned back into the names people wrote: C++ names of the Itanium ABI and
 * Rust names (legacy and v0), printed as binutils' {@code c++filt} prints them
 * ({@link org.hyperprof.demangle.Demangler#full}) or as perf report prints them, without parameters
 * or return type ({@link org.hyperprof.demangle.Demangler#brief}).
 *
 * <p>Pure Java, no dependencies: a name that is not mangled, or cannot be demangled, comes back as
 * it was, as c++filt does.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.demangle;
