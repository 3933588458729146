package org.hyperprof.api.store;

/**
 * Where the store is and what it holds.
 *
 * @param path          the database file
 * @param bytes         its size on disk (0 before the first session made it)
 * @param sessions      the sessions it holds
 * @param schemaVersion the version of its schema (the README's "The session store")
 */
public record StoreInfo(String path, long bytes, long sessions, int schemaVersion) {
}
