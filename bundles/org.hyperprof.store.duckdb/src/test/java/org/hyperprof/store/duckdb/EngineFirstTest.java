package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * In a framework, DuckDB's bundle is installed at the store's first use, after DS has read the
 * components' classes (their methods, lambdas included): no DuckDB type may appear in them, else the
 * store fails before it could install it.
 */
class EngineFirstTest {

    @Test
    void theClassesLoadedBeforeTheFirstUseNameNoDuckDBType() {
        List<String> named = new ArrayList<>();
        for (Class<?> k : List.of(SessionStoreComponent.class, StoreCommands.class, EngineBundle.class, Engine.class,
                OpenSession.class, SampleRows.class)) {
            for (Field f : k.getDeclaredFields()) {
                note(named, f.toString(), f.getType());
            }
            for (Executable e : Stream.concat(Stream.of(k.getDeclaredMethods()), Stream.of(k.getDeclaredConstructors()))
                    .toList()) {
                note(named, e.toString(), e.getParameterTypes());
                if (e instanceof Method m) {
                    note(named, e.toString(), m.getReturnType());
                }
            }
        }
        assertEquals(List.of(), named);
    }

    private static void note(List<String> named, String where, Class<?>... types) {
        for (Class<?> t : types) {
            if (t.getName().startsWith("org.duckdb.")) {
                named.add(where);
            }
        }
    }
}
