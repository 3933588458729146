package org.hyperprof.web.pages;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import jakarta.servlet.Servlet;

/**
 * {@code /api/pages}: the pages present, in navigation order, from the properties of the page servlets
 * registered. A page whose backing service is absent is not registered, so it is not listed, and the
 * navigation ({@code hp.js}) and other pages do not link to it.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/pages",
        Whiteboard.CONTEXT_SELECT})
public final class PagesApi extends JsonServlet {
    private static final long serialVersionUID = 1L;

    /** A page as the navigation shows it. */
    record Page(String title, String path, int order) {
    }

    private final Map<Object, Page> pages = new ConcurrentHashMap<>();

    @Reference(service = Servlet.class, cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            target = "(" + Whiteboard.PAGE_PATH + "=*)", unbind = "removePage")
    void addPage(Servlet servlet, Map<String, Object> properties) {
        Object title = properties.get(Whiteboard.PAGE_TITLE);
        Object path = properties.get(Whiteboard.PAGE_PATH);
        Object order = properties.get(Whiteboard.PAGE_ORDER);
        pages.put(properties.get("service.id"), new Page(String.valueOf(title == null ? path : title),
                String.valueOf(path), order instanceof Number n ? n.intValue() : 1000));
    }

    void removePage(Servlet servlet, Map<String, Object> properties) {
        pages.remove(properties.get("service.id"));
    }

    /** The pages, ordered by their order, then path. */
    List<Page> pages() {
        List<Page> list = new ArrayList<>(pages.values());
        list.sort(Comparator.comparingInt(Page::order).thenComparing(Page::path));
        return list;
    }

    @Override
    protected void answer(Params params, Json json) {
        json.beginObject().name("pages").beginArray();
        for (Page p : pages()) {
            json.beginObject().member("title", p.title()).member("path", p.path()).member("order", p.order()).endObject();
        }
        json.endArray().endObject();
    }
}
