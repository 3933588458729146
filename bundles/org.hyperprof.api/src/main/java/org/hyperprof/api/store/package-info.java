/**
 * The session store: every profiling session kept past the framework's life, with its books, and
 * the queries over it ({@link org.hyperprof.api.store.SessionStore}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.5.0")
package org.hyperprof.api.store;
