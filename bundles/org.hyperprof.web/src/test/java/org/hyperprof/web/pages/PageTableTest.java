package org.hyperprof.web.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Set;
import java.util.stream.Collectors;

import org.hyperprof.web.server.Whiteboard;
import org.junit.jupiter.api.Test;

/** The table's pages have distinct paths, a file each, and register with the properties the navigation reads. */
class PageTableTest {

    @Test
    void everyPageHasItsFileAndADistinctPath() throws IOException {
        Set<String> paths = PageTable.PAGES.stream().map(PageTable.Page::path).collect(Collectors.toSet());
        assertEquals(PageTable.PAGES.size(), paths.size());
        for (PageTable.Page page : PageTable.PAGES) {
            assertNotNull(PageServlet.page(PageServlet.class, "/pages/" + page.file() + ".html"), page.path());
        }
    }

    @Test
    void aPageRegistersInTheViewsContextWithItsTitlePathAndOrder() {
        PageTable.Page flame = PageTable.PAGES.stream().filter(p -> p.path().equals("/flame")).findFirst().orElseThrow();
        assertEquals(Set.of(PageTable.Need.STORE, PageTable.Need.FLAMEGRAPH), flame.needs());
        Dictionary<String, Object> properties = PageTable.properties(flame);
        assertEquals("/flame", properties.get("osgi.http.whiteboard.servlet.pattern"));
        assertEquals("(osgi.http.whiteboard.context.name=hyperprof)",
                properties.get("osgi.http.whiteboard.context.select"));
        assertEquals("Flame graph", properties.get(Whiteboard.PAGE_TITLE));
        assertEquals("/flame", properties.get(Whiteboard.PAGE_PATH));
        assertEquals(-1, properties.get(Whiteboard.PAGE_ORDER));
        assertEquals("(&(objectClass=org.hyperprof.api.report.ReportFileWriter)(report.name=flamegraph))",
                PageTable.Need.FLAMEGRAPH.filter);
    }
}
