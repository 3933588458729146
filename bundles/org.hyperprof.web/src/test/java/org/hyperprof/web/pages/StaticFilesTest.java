package org.hyperprof.web.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.regex.Matcher;
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
        for (String page : List.of("sessions", "session", "flame", "diff", "annotate", "fleet", "live", "study")) {
            String html = PageServlet.page(PageServlet.class, "/pages/" + page + ".html");
            assertFalse(Pattern.compile("<script(?![^>]*\\bsrc=)").matcher(html).find(), page + " has an inline script");
            assertFalse(html.contains("<style"), page + " has an inline style");
            assertFalse(Pattern.compile("\\son[a-z]+=").matcher(html).find(), page + " has an event attribute");
            assertFalse(html.contains("http://") || html.contains("https://"), page + " loads from elsewhere");
            assertTrue(html.contains("src=\"/static/hp.js\""), page + " loads hp.js");
            Matcher script = Pattern.compile("src=\"(/static/" + page + "(?:/" + page + ")?\\.js)\"").matcher(html);
            assertTrue(script.find(), page + " loads its own script");
            try (InputStream js = StaticFilesTest.class.getResourceAsStream(script.group(1))) {
                assertTrue(js != null, script.group(1) + " is in the bundle");
            }
        }
    }

    @Test
    void everyPageIsOneDocumentInTheSharedShell() throws IOException {
        String html = PageServlet.page(PageServlet.class, "/pages/study.html");
        assertTrue(html.startsWith("<!doctype html>\n"), html);
        assertTrue(html.contains("<title>Study · Hyperprof</title>\n<link rel=\"stylesheet\" href=\"/static/side/side.css\">"
                + "\n<script type=\"module\" src=\"/static/study/study.js\"></script>\n</head>"), html);
        assertTrue(html.contains("<nav id=\"hp-nav\"></nav>\n<main>\n<h1>Study</h1>"), html);
        assertTrue(html.endsWith("</main>\n</body>\n</html>\n"), html);
        assertFalse(html.contains("<!--"), "every slot of the shell is filled");
    }
}
