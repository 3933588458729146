package org.hyperprof.web.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The bundle's pages have no inline script (the policy forbids it) and load only the bundle's own files. */
class StaticFilesTest {

    @Test
    void onlyKnownTypesAreServed() {
        assertEquals("text/javascript;charset=utf-8", StaticFiles.type("/hp.js"));
        assertNull(StaticFiles.type("/secret.class"));
        assertNull(StaticFiles.type("/noext"));
    }

    @Test
    void pagesHaveNoInlineScriptOrStyleAndNothingFromElsewhere() throws IOException {
        for (String page : List.of("sessions", "session", "flame", "diff")) {
            String html;
            try (InputStream in = StaticFilesTest.class.getResourceAsStream("/pages/" + page + ".html")) {
                html = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertFalse(Pattern.compile("<script(?![^>]*\\bsrc=)").matcher(html).find(), page + " has an inline script");
            assertFalse(html.contains("<style"), page + " has an inline style");
            assertFalse(Pattern.compile("\\son[a-z]+=").matcher(html).find(), page + " has an event attribute");
            assertFalse(html.contains("http://") || html.contains("https://"), page + " loads from elsewhere");
            assertTrue(html.contains("src=\"/static/hp.js\""), page + " loads hp.js");
            try (InputStream js = StaticFilesTest.class.getResourceAsStream("/static/" + page + ".js")) {
                assertTrue(js != null, page + ".js is in the bundle");
            }
        }
    }
}
