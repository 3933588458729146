package org.hyperprof.web.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * The view's parameter parser on any query string a browser (or anyone) may send: it either refuses the
 * query with a {@link BadParameter} that has a message, or every typed getter returns a value in its
 * bounds or refuses with a message; nothing else is ever thrown. In CI the inputs under
 * {@code ParamsFuzzTestInputs/} are replayed as ordinary tests ({@code .ci/fuzz http-params} fuzzes).
 */
class ParamsFuzzTest {

    @FuzzTest(maxDuration = "10m")
    void queryString(FuzzedDataProvider data) {
        String name = data.consumeString(12);
        String query = data.consumeRemainingAsString();
        Params p;
        try {
            p = Params.parse(query);
        } catch (BadParameter e) {
            assertMessage(e);
            return;
        }
        assertTrue(p.names().size() <= Params.MAX_PARAMETERS);
        for (String n : List.copyOf(p.names()).subList(0, Math.min(4, p.names().size()))) {
            check(p, n);
        }
        check(p, name.isEmpty() ? "id" : name);
    }

    private static void check(Params p, String name) {
        try {
            long id = p.id(name);
            assertTrue(id >= 0);
        } catch (BadParameter e) {
            assertMessage(e);
        }
        try {
            int n = p.integer(name, 1, 1000, 7);
            assertTrue(n >= 1 && n <= 1000);
        } catch (BadParameter e) {
            assertMessage(e);
        }
        try {
            String t = p.text(name, "");
            assertTrue(t.length() <= Params.MAX_TEXT);
            assertFalse(t.chars().anyMatch(Character::isISOControl));
        } catch (BadParameter e) {
            assertMessage(e);
        }
        try {
            String c = p.choice(name, List.of("pprof", "svg"), "svg");
            assertTrue(c.equals("pprof") || c.equals("svg"));
        } catch (BadParameter e) {
            assertMessage(e);
        }
        try {
            p.pattern(name);
        } catch (BadParameter e) {
            assertMessage(e);
        }
    }

    private static void assertMessage(BadParameter e) {
        assertNotNull(e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }
}
