package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

import org.duckdb.DuckDBDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Text and lists packed by DuckDB read back as they were: colons, digits, non-BMP characters, NULLs. */
class PackedTextTest {
    @TempDir
    Path folder;

    @Test
    void packedValuesReadBackAsTheyWereStored() throws Exception {
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + folder.resolve("t.duckdb"), new Properties());
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (a VARCHAR, b VARCHAR[], c VARCHAR, d BIGINT[], e VARCHAR[])");
            s.execute("INSERT INTO t VALUES ('12:3-x', ['', 'a:b', '\uD83D\uDE00é'], NULL, [-5, 7], NULL)");
            try (ResultSet r = s.executeQuery("SELECT " + PackedText.select(List.of("a", "b", "c", "d", "e"),
                    List.of("b", "d", "e")) + " FROM t")) {
                r.next();
                PackedText t = new PackedText(r.getString(1));
                assertEquals("12:3-x", t.text());
                assertEquals(List.of("", "a:b", "\uD83D\uDE00é"), t.list());
                assertNull(t.text());
                assertEquals(List.of("-5", "7"), t.list());
                assertEquals(List.of(), t.list());
            }
        }
    }
}
