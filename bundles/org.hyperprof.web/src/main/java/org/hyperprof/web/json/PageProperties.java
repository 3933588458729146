package org.hyperprof.web.json;

/**
 * The service properties a page's servlet registers with (the web view's contract): the context it belongs to,
 * and the title, path and order the navigation is built from.
 */
public final class PageProperties {
    public static final String CONTEXT = "osgi.http.whiteboard.context.select=(osgi.http.whiteboard.context.name"
            + "=hyperprof)";
    public static final String TITLE = "hyperprof.web.page.title=";
    public static final String PATH = "hyperprof.web.page.path=";
    public static final String ORDER = "hyperprof.web.page.order:Integer=";
    public static final String PATTERN = "osgi.http.whiteboard.servlet.pattern=";
    public static final String ASYNC = "osgi.http.whiteboard.servlet.asyncSupported:Boolean=true";

    private PageProperties() {
    }
}
