package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Replies as any server (or anything answering on its port) may send them: the parser either gives rows
 * of exactly the columns asked, which written back as TabSeparated read the same, or refuses the reply
 * with a one-line {@link FleetException} of kind BAD_REPLY; an error text always becomes a one-line
 * FleetException of some kind. Anything else (another exception, a hang) is a finding. The first byte
 * picks the columns asked (1 to 9) or, above 0xF0, an error reply of that status.
 *
 * <p>In CI the inputs under {@code ServerReplyFuzzTestInputs/} are replayed as ordinary tests.
 */
class ServerReplyFuzzTest {
    @FuzzTest(maxDuration = "10m")
    void serverReply(byte[] bytes) {
        if (bytes.length == 0) {
            return;
        }
        String body = new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
        int pick = bytes[0] & 0xff;
        if (pick >= 0xF0) {
            FleetException e = ServerReply.error(400 + (pick - 0xF0) * 10, body);
            assertNotNull(e.kind());
            assertFalse(e.getMessage().contains("\n"), "an error is one line");
            return;
        }
        int columns = pick % 9 + 1;
        List<String[]> rows;
        try {
            rows = ServerReply.rows(body, columns);
        } catch (FleetException e) {
            assertEquals(FleetException.Kind.BAD_REPLY, e.kind());
            assertFalse(e.getMessage().contains("\n"), "a refusal is one line");
            assertTrue(e.getMessage().startsWith("the server's reply does not parse at line "), e.getMessage());
            return;
        }
        StringBuilder again = new StringBuilder();
        for (String[] row : rows) {
            assertEquals(columns, row.length);
            for (int c = 0; c < columns; c++) {
                again.append(c == 0 ? "" : "\t").append(row[c] == null ? "\\N" : Sql.field(row[c]));
            }
            again.append('\n');
        }
        try {
            List<String[]> back = ServerReply.rows(again.toString(), columns);
            assertEquals(rows.size(), back.size());
            for (int r = 0; r < rows.size(); r++) {
                assertArrayEquals(rows.get(r), back.get(r), "rows written back read the same");
            }
        } catch (FleetException e) {
            throw new AssertionError("rows written back do not parse: " + e.getMessage(), e);
        }
    }
}
