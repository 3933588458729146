package org.hyperprof.web.pages;

import java.util.ArrayList;
import java.util.Dictionary;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.report.FunctionAnnotations;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.store.FleetView;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.study.StudyResults;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceFactory;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The view's pages, as a table: each page's path, title, place in the navigation ({@code -1}: not in it) and the
 * services it needs. A page is registered as a whiteboard servlet while all its services are there, and not
 * otherwise, so that a page without its backing service is neither served nor listed. Only the services'
 * references are tracked (a page never calls them): a page's presence activates no store, and its servlet is made
 * when the whiteboard first asks for it.
 */
@Component
public final class PageTable {
    /** A service a page may need, by its filter. */
    enum Need {
        STORE(SessionStore.class, ""),
        FLEET(FleetView.class, ""),
        STUDY(StudyResults.class, ""),
        ANNOTATIONS(FunctionAnnotations.class, ""),
        FLAMEGRAPH(ReportFileWriter.class, "(report.name=flamegraph)"),
        OPREPORT(ReportRenderer.class, "(report.name=opreport)");

        final String filter;

        Need(Class<?> service, String target) {
            this.filter = "(&(objectClass=" + service.getName() + ")" + target + ")";
        }
    }

    /** A page: its HTML file is {@code /pages/<file>.html}. */
    record Page(String path, String title, int order, String file, Set<Need> needs) {
        Page(String path, String title, int order, String file, Need... needs) {
            this(path, title, order, file, needs.length == 0 ? Set.of() : Set.copyOf(EnumSet.of(needs[0], needs)));
        }
    }

    static final List<Page> PAGES = List.of(
            new Page("/", "Sessions", 10, "sessions", Need.STORE),
            new Page("/live", "Live", 40, "live"),
            new Page("/fleet", "Fleet", 50, "fleet", Need.FLEET),
            new Page("/study", "Study", 60, "study", Need.STUDY),
            new Page("/annotate", "Annotate", 70, "annotate", Need.ANNOTATIONS),
            new Page("/diff", "Diff", -1, "diff", Need.STORE),
            new Page("/flame", "Flame graph", -1, "flame", Need.STORE, Need.FLAMEGRAPH),
            new Page("/session", "Session", -1, "session", Need.STORE, Need.OPREPORT));

    /** A name, not {@code Servlet.class}: the servlet API loads only when the whiteboard asks for a page. */
    private static final String SERVLET = "jakarta.servlet.Servlet";

    private final BundleContext context;
    private final List<ServiceTracker<Object, ServiceReference<Object>>> trackers = new ArrayList<>();
    /** The references of each need present now (the tracker's own count is updated only after adding). */
    private final Map<Need, Set<ServiceReference<?>>> present = new EnumMap<>(Need.class);
    private final Map<Page, ServiceRegistration<?>> registered = new HashMap<>();
    private boolean active;

    @Activate
    public PageTable(BundleContext context) throws InvalidSyntaxException {
        this.context = context;
        for (Need need : Need.values()) {
            present.put(need, new HashSet<>());
            trackers.add(new ServiceTracker<>(context, context.createFilter(need.filter), null) {
                @Override
                public ServiceReference<Object> addingService(ServiceReference<Object> reference) {
                    change(need, reference, true);
                    return reference;
                }

                @Override
                public void removedService(ServiceReference<Object> reference, ServiceReference<Object> same) {
                    change(need, reference, false);
                }
            });
        }
        synchronized (this) {
            active = true;
        }
        trackers.forEach(ServiceTracker::open);
        refresh();
    }

    @Deactivate
    void deactivate() {
        synchronized (this) {
            active = false;
        }
        trackers.forEach(ServiceTracker::close);
        refresh();
    }

    private synchronized void change(Need need, ServiceReference<?> reference, boolean there) {
        if (there) {
            present.get(need).add(reference);
        } else {
            present.get(need).remove(reference);
        }
        refresh();
    }

    /** Registers the pages whose services are all there now, and withdraws the others. */
    private synchronized void refresh() {
        for (Page page : PAGES) {
            boolean wanted = active && page.needs().stream().allMatch(this::present);
            ServiceRegistration<?> registration = registered.get(page);
            if (wanted && registration == null) {
                registered.put(page, context.registerService(SERVLET, new PageFactory(page), properties(page)));
            } else if (!wanted && registration != null) {
                registered.remove(page);
                registration.unregister();
            }
        }
    }

    private boolean present(Need need) {
        return !present.get(need).isEmpty();
    }

    static Dictionary<String, Object> properties(Page page) {
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("osgi.http.whiteboard.servlet.pattern", page.path());
        properties.put(Whiteboard.CONTEXT_SELECT_KEY, Whiteboard.CONTEXT_FILTER);
        properties.put(Whiteboard.PAGE_TITLE, page.title());
        properties.put(Whiteboard.PAGE_PATH, page.path());
        properties.put(Whiteboard.PAGE_ORDER, page.order());
        return properties;
    }

    /** Makes a page's servlet when the whiteboard first asks for it. */
    private record PageFactory(Page page) implements ServiceFactory<Object> {
        @Override
        public Object getService(Bundle bundle, ServiceRegistration<Object> registration) {
            return new PageServlet(page.path(), "/pages/" + page.file() + ".html");
        }

        @Override
        public void ungetService(Bundle bundle, ServiceRegistration<Object> registration, Object service) {
            // nothing held
        }
    }
}
