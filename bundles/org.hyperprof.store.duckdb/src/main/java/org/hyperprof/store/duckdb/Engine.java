package org.hyperprof.store.duckdb;

import org.hyperprof.api.store.StoreException;

/** DuckDB, made loadable before the store first touches its classes ({@link StoreFile}). */
@FunctionalInterface
interface Engine {
    /** Plain Java: DuckDB's classes come with the class path, nothing to install. */
    Engine CLASS_PATH = () -> { };

    /** Returns once DuckDB's classes can be loaded; else why not, naming what to install. */
    void ready() throws StoreException;
}
