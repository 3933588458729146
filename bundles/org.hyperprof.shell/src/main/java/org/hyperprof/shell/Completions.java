package org.hyperprof.shell;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * What Tab offers at the interactive prompt: each {@code hp:} command's options (read from its
 * usage line) and the words that fill them in, taken from the services installed right now:
 * scenario names, the current host's events, policies, CPU types, session ids, renderer and writer
 * names, and bundle symbolic names for the framework's bundle commands. {@link InteractivePrompt}
 * declares them in the JLine session with Gogo's {@code complete}; every reference is dynamic, so a
 * plug-in that comes or goes is offered or not at the next Tab.
 */
@Component(service = Completions.class)
public final class Completions {
    /** The framework's commands (gogo.command) that take a bundle: Tab offers symbolic names. */
    static final List<String> BUNDLE_COMMANDS = List.of("felix:start", "felix:stop", "felix:uninstall",
            "felix:update");

    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])--([a-z][a-z0-9-]*)");

    private final BundleContext context;
    private final ReportPlugins reports;

    // Every plug-in is looked at only when Tab asks (a service reference, names from the service
    // properties): a piped run, where this component is there but no Tab is pressed, activates none.
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ServiceReference<HostService> hosts;
    @Reference(service = PmuModel.class, cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<ServiceReference<PmuModel>> models = List.of();
    @Reference(service = CounterVirtualizationPolicy.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    private volatile List<ServiceReference<CounterVirtualizationPolicy>> policies = List.of();
    /** The hp: commands of other bundles (hp:import, hp:study): their usage lines are read when declared. */
    @Reference(service = Object.class, target = "(osgi.command.scope=hp)", cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    private volatile List<ServiceReference<Object>> commands = List.of();

    /** One command's usage line: {@code hp:name} and what it takes, with a one-line summary. */
    record Usage(String command, String arguments, String summary) {
    }

    @Activate
    public Completions(BundleContext context, @Reference(name = "reports") ReportPlugins reports) {
        this.context = context;
        this.reports = reports;
    }

    /**
     * The options a usage line shows, in its order: {@code --ms} and {@code --event} of
     * {@code [--ms N] [--event SPEC]...}; a lone {@code --} (end of options) is none.
     */
    static List<String> options(String usageLine) {
        Set<String> names = new LinkedHashSet<>();
        Matcher m = OPTION.matcher(usageLine);
        while (m.find()) {
            names.add("--" + m.group(1));
        }
        return List.copyOf(names);
    }

    /** Every hp: command's usage: the shell's own, then those other bundles register. */
    List<Usage> usages() {
        List<Usage> all = new ArrayList<>();
        for (HpCommand c : HpCommand.values()) {
            all.add(new Usage(c.scoped(), c.arguments(), c.summary()));
        }
        for (ServiceReference<Object> c : commands) {
            Bundle b = c.getBundle();
            if (b != null && b.getBundleId() != context.getBundle().getBundleId()) {
                all.addAll(use(c, service -> Arrays.stream(functions(c)).map(f -> describe(service, f))
                        .flatMap(Optional::stream).toList(), List.of()));
            }
        }
        return all;
    }

    /**
     * The words Tab offers for the word at {@code index} of a command line: the value of the option
     * before it, or the command's positional word there. JLine keeps those that start with what is
     * typed.
     */
    List<String> candidates(List<String> words, int index) {
        if (words.isEmpty() || index < 1 || index > words.size()) {
            return List.of();
        }
        String command = words.get(0);
        String previous = words.get(index - 1);
        List<String> value = optionValues(previous, words);
        if (value != null) {
            return value;
        }
        String function = command.substring(command.indexOf(':') + 1);
        if (BUNDLE_COMMANDS.stream().anyMatch(b -> b.endsWith(":" + function))) {
            return bundles();
        }
        return positional(function, position(words, index));
    }

    /** The values an option takes, or null when {@code option} is none Tab knows. */
    private List<String> optionValues(String option, List<String> words) {
        return switch (option) {
            case "--scenario" -> scenarios();
            case "--event" -> events(words);
            case "--cpu" -> cpuTypes();
            case "--host-option" -> policies().stream().map(p -> "vpmu.policy=" + p).toList();
            case "--policies" -> policies();
            case "--session" -> sessions();
            case "--renderer", "--report" -> reports.renderers().list().stream().map(Plugins.Entry::name).distinct()
                    .toList();
            default -> null;
        };
    }

    /** A positional word of an hp: command (0 = the first after the name). */
    private List<String> positional(String function, int position) {
        if (position != 0) {
            return List.of();
        }
        return switch (function) {
            case "load" -> scenarios();
            case "events" -> cpuTypes();
            case "export" -> reports.writers().list().stream().map(Plugins.Entry::name).distinct().toList();
            case "commands" -> Arrays.stream(HpCommand.values()).map(HpCommand::function).toList();
            default -> List.of();
        };
    }

    /** Which positional word {@code index} is: words after an option are its value, not positional. */
    private static int position(List<String> words, int index) {
        int position = 0;
        for (int i = 1; i < index; i++) {
            if (!words.get(i).startsWith("-") && !words.get(i - 1).startsWith("-")) {
                position++;
            }
        }
        return position;
    }

    List<String> scenarios() {
        ServiceReference<HostService> h = hosts;
        return h == null ? List.of() : use(h, HostService::scenarios, List.of());
    }

    /**
     * The event names of the current host's CPU model; with no host yet, those of the model the line
     * names with {@code --cpu}, else of every installed model.
     */
    List<String> events(List<String> words) {
        ServiceReference<HostService> h = hosts;
        Optional<String> current = h == null ? Optional.empty()
                : use(h, s -> s.current().map(Host::model).map(PmuModel::cpuType), Optional.<String>empty());
        int cpu = words.indexOf("--cpu");
        Optional<String> type = current.isEmpty() && cpu >= 0 && cpu + 1 < words.size()
                ? Optional.of(words.get(cpu + 1)) : current;
        Set<String> names = new TreeSet<>();
        for (ServiceReference<PmuModel> m : models) {
            if (type.isEmpty() || type.get().equals(PmuModel.IDENTITY.find(m::getProperty)
                    .orElse(null))) {
                use(m, model -> model.events().events().stream().map(EventDescriptor::name).toList(), List.<String>of())
                        .forEach(names::add);
            }
        }
        return List.copyOf(names);
    }

    List<String> cpuTypes() {
        return models.stream().map(m -> PmuModel.IDENTITY.find(m::getProperty))
                .flatMap(Optional::stream).distinct().sorted().toList();
    }

    List<String> policies() {
        return policies.stream().map(r -> CounterVirtualizationPolicy.IDENTITY.find(r::getProperty))
                .flatMap(Optional::stream).distinct().sorted().toList();
    }

    /** Gets a service for one question and gives it back; an empty answer when it has gone meanwhile. */
    private <S, R> R use(ServiceReference<S> ref, java.util.function.Function<S, R> question, R none) {
        S service = context.getService(ref);
        if (service == null) {
            return none;
        }
        try {
            return question.apply(service);
        } finally {
            context.ungetService(ref);
        }
    }

    private static String[] functions(ServiceReference<?> ref) {
        Object f = ref.getProperty("osgi.command.function");
        return f instanceof String[] a ? a : new String[] {String.valueOf(f)};
    }

    /** The session ids the renderers and writers keep: those {@code hp:reports} lists. */
    List<String> sessions() {
        Set<Long> ids = new TreeSet<>();
        reports.renderers().list().forEach(e -> ids.addAll(e.service().sessions()));
        reports.writers().list().forEach(e -> ids.addAll(e.service().sessions()));
        return ids.stream().map(String::valueOf).toList();
    }

    List<String> bundles() {
        Set<String> names = new TreeSet<>();
        for (Bundle b : context.getBundles()) {
            if (b.getBundleId() != 0 && b.getSymbolicName() != null) {
                names.add(b.getSymbolicName());
            }
        }
        return List.copyOf(names);
    }

    /** Gogo's own reading of a command: the public method named {@code f} (or {@code _f} for a keyword). */
    private static Optional<Usage> describe(Object commands, String f) {
        for (java.lang.reflect.Method m : commands.getClass().getMethods()) {
            if (m.getName().equals(f) || m.getName().equals("_" + f)) {
                java.lang.annotation.Annotation[][] parameters = m.getParameterAnnotations();
                String arguments = "";
                if (parameters.length > 0) {
                    for (java.lang.annotation.Annotation a : parameters[parameters.length - 1]) {
                        if (a instanceof Descriptor d) {
                            arguments = d.value();
                        }
                    }
                }
                Descriptor summary = m.getAnnotation(Descriptor.class);
                return Optional.of(new Usage("hp:" + f, arguments, summary == null ? "" : summary.value()));
            }
        }
        return Optional.empty();
    }
}
