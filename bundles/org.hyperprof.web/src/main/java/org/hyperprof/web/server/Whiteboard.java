package org.hyperprof.web.server;

/**
 * The names every page of the view registers with (the web contract of issue 21): its servlet goes into
 * the {@code hyperprof} context, and a page that belongs in the navigation says its title, path and order.
 */
public final class Whiteboard {
    /** The servlet context's name. */
    public static final String CONTEXT_NAME = "hyperprof";
    /** The property that puts a servlet in a context. */
    public static final String CONTEXT_SELECT_KEY = "osgi.http.whiteboard.context.select";
    /** Its value for the view's context. */
    public static final String CONTEXT_FILTER = "(osgi.http.whiteboard.context.name=" + CONTEXT_NAME + ")";
    /** The property every servlet of the view carries, as one DS property line. */
    public static final String CONTEXT_SELECT = CONTEXT_SELECT_KEY + "=" + CONTEXT_FILTER;
    /** A page's title in the navigation. */
    public static final String PAGE_TITLE = "hyperprof.web.page.title";
    /** A page's path ({@code /flame}). */
    public static final String PAGE_PATH = "hyperprof.web.page.path";
    /** A page's place in the navigation (Integer, smaller first). */
    public static final String PAGE_ORDER = "hyperprof.web.page.order";

    private Whiteboard() {
    }
}
