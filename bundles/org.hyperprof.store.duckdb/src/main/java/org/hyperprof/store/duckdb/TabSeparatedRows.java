package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;

/**
 * A result set written as TabSeparated text, the format ClickHouse (and PostgreSQL's COPY) read: {@code \N}
 * is NULL, backslash escapes tab, newline and backslash in text, lists are {@code ['a','b']}, booleans 0
 * or 1, times seconds since the epoch. Numbers are written digit by digit into the buffer: no object per
 * number (a session has a row per distinct sample key, hundreds of thousands for a long one).
 */
final class TabSeparatedRows {
    private final OutputStream out;
    private final byte[] prefix;
    private final byte[] buffer = new byte[1 << 16];
    private int used;

    TabSeparatedRows(OutputStream out, String prefix) {
        this.out = out;
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes every row of {@code r}; the number of rows. */
    long copy(ResultSet r) throws SQLException, IOException {
        ResultSetMetaData m = r.getMetaData();
        int n = m.getColumnCount();
        int[] types = new int[n + 1];
        for (int i = 1; i <= n; i++) {
            types[i] = m.getColumnType(i);
        }
        long rows = 0;
        while (r.next()) {
            bytes(prefix);
            for (int i = 1; i <= n; i++) {
                if (i > 1) {
                    put('\t');
                }
                column(r, i, types[i]);
            }
            put('\n');
            rows++;
        }
        flush();
        return rows;
    }

    private void column(ResultSet r, int i, int type) throws SQLException, IOException {
        switch (type) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> {
                long v = r.getLong(i);
                if (r.wasNull()) {
                    nul();
                } else {
                    number(v);
                }
            }
            case Types.BOOLEAN -> {
                boolean v = r.getBoolean(i);
                if (r.wasNull()) {
                    nul();
                } else {
                    put(v ? '1' : '0');
                }
            }
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> {
                Timestamp t = r.getTimestamp(i);
                if (t == null) {
                    nul();
                } else {
                    number(t.toInstant().getEpochSecond());
                }
            }
            case Types.ARRAY -> {
                Array a = r.getArray(i);
                if (a == null) {
                    bytes(EMPTY_LIST); // ClickHouse has no NULL list: no sessions (an origin of none) is []
                } else {
                    list((Object[]) a.getArray());
                }
            }
            default -> {
                String s = r.getString(i);
                if (s == null) {
                    nul();
                } else {
                    text(s, false);
                }
            }
        }
    }

    private static final byte[] EMPTY_LIST = {'[', ']'};

    private void list(Object[] values) throws IOException {
        put('[');
        for (int k = 0; k < values.length; k++) {
            if (k > 0) {
                put(',');
            }
            Object v = values[k];
            if (v instanceof Number number) {
                number(number.longValue());
            } else {
                put('\'');
                text(String.valueOf(v), true);
                put('\'');
            }
        }
        put(']');
    }

    /** Text with TabSeparated's escapes; {@code quoted}: inside a list's quotes, where ' is escaped too. */
    private void text(String s, boolean quoted) throws IOException {
        for (int k = 0; k < s.length(); k++) {
            char ch = s.charAt(k);
            switch (ch) {
                case '\t' -> two('\\', 't');
                case '\n' -> two('\\', 'n');
                case '\r' -> two('\\', 'r');
                case '\0' -> two('\\', '0');
                case '\\' -> two('\\', '\\');
                case '\'' -> {
                    if (quoted) {
                        two('\\', '\'');
                    } else {
                        put('\'');
                    }
                }
                default -> {
                    if (ch < 0x80) {
                        put(ch);
                    } else {
                        int end = k + 1;
                        while (end < s.length() && s.charAt(end) >= 0x80) {
                            end++;
                        }
                        bytes(s.substring(k, end).getBytes(StandardCharsets.UTF_8));
                        k = end - 1;
                    }
                }
            }
        }
    }

    private void nul() throws IOException {
        two('\\', 'N');
    }

    private void two(char a, char b) throws IOException {
        put(a);
        put(b);
    }

    private void number(long v) throws IOException {
        if (used + 20 > buffer.length) {
            flush();
        }
        if (v == Long.MIN_VALUE) {
            bytes("-9223372036854775808".getBytes(StandardCharsets.US_ASCII));
            return;
        }
        if (v < 0) {
            buffer[used++] = '-';
            v = -v;
        }
        int start = used;
        do {
            buffer[used++] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        for (int a = start, b = used - 1; a < b; a++, b--) {
            byte t = buffer[a];
            buffer[a] = buffer[b];
            buffer[b] = t;
        }
    }

    private void put(char ch) throws IOException {
        if (used == buffer.length) {
            flush();
        }
        buffer[used++] = (byte) ch;
    }

    private void bytes(byte[] b) throws IOException {
        if (used + b.length > buffer.length) {
            flush();
        }
        if (b.length > buffer.length) {
            out.write(b);
            return;
        }
        System.arraycopy(b, 0, buffer, used, b.length);
        used += b.length;
    }

    private void flush() throws IOException {
        out.write(buffer, 0, used);
        used = 0;
    }
}
