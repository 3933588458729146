package org.hyperprof.shell;

import java.util.List;
import java.util.Optional;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Table;
import org.hyperprof.shell.session.WorkingFolder;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:scenarios}, {@code hp:load}, {@code hp:host}, {@code hp:run}, {@code hp:domain}: the
 * simulated host and its domains.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=scenarios",
        "osgi.command.function=load", "osgi.command.function=host", "osgi.command.function=run",
        "osgi.command.function=domain"})
public class HostCommands {
    /** What {@code hp:load} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String LOAD_ARGUMENTS = "[name|path] [--cpu cpu.type] [--host-option k=v]... [--pmu-option k=v]...";

    /** What {@code hp:run} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String RUN_ARGUMENTS = "<ms>";

    /** What {@code hp:domain} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String DOMAIN_ARGUMENTS = "<domid> [state|pause|unpause|destroy]";

    private final HostService hosts;
    private final StopRequests stops;
    private final Console console;

    @Activate
    public HostCommands(@Reference(name = "hosts") HostService hosts, @Reference(name = "stops") StopRequests stops) {
        this(hosts, stops, Console.system());
    }

    /** Runs no user can stop (tests, embedding). */
    HostCommands(HostService hosts, Console console) {
        this(hosts, StopRequests.NONE, console);
    }

    HostCommands(HostService hosts, StopRequests stops, Console console) {
        this.hosts = hosts;
        this.stops = stops;
        this.console = console;
    }

    @Descriptor("the embedded scenarios (* marks the default)")
    public void scenarios(@Descriptor(PluginCommands.LISTING_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.SCENARIOS.syntax(), args, out -> {
            Table.Format format = CommandLines.listing(HpCommand.SCENARIOS, args);
            List<String> names = hosts.scenarios();
            String current = hosts.current().map(Host::name).orElse(null);
            if (format != Table.Format.TEXT) {
                Table t = new Table("SCENARIO", "DEFAULT", "LOADED");
                names.forEach(n -> t.row(n, n.equals(HostService.DEFAULT_SCENARIO), n.equals(current)));
                t.print(out, format);
                return;
            }
            if (names.isEmpty()) {
                out.println("no embedded scenarios; hp:load <path> loads a scenario file");
                return;
            }
            for (String name : names) {
                out.println((name.equals(HostService.DEFAULT_SCENARIO) ? "* " : "  ") + name
                        + (name.equals(current) ? "   (loaded)" : ""));
            }
            out.println("hp:load <name> loads one; hp:load <path> loads a scenario file");
        });
    }

    @Descriptor("load a scenario as the current host and print it")
    public void load(@Descriptor(LOAD_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.LOAD.syntax(), args, out -> {
            CommandLines.Load line = CommandLines.load(args);
            Host host = hosts.load(WorkingFolder.nameOrFile(line.scenario(), hosts.scenarios()), line.cpuType(), line.hostOptions(), line.pmuOptions());
            HostText.printHost(host, out);
        });
    }

    @Descriptor("the current host, its domains and its Xenoprof state")
    public void host(@Descriptor("no arguments") String... args) {
        Guard.run(console, HpCommand.HOST.syntax(), args, out -> {
            CommandLines.none(HpCommand.HOST, args);
            Host host = current(hosts);
            HostText.printHost(host, out);
            out.println("time      " + HostText.elapsed(host));
            HostText.printXenoprof(host, out);
        });
    }

    @Descriptor("run the simulated host for <ms> simulated milliseconds (1 to 3600000), showing progress; Ctrl-C"
            + " stops the run early")
    public void run(@Descriptor(RUN_ARGUMENTS) String... args) {
        try (StopRequests.Watch watch = stops.watch(HpCommand.RUN.scoped())) {
            Guard.run(console, HpCommand.RUN.syntax(), args, out -> {
                long micros = CommandLines.runMicros(args);
                Host host = current(hosts);
                XenoprofState state = host.xenoprof().state();
                out.printf("running %s for %d ms simulated (Xenoprof %s)%n", host.name(), micros / 1000, state);
                for (String why : host.noSamplesExpected(micros)) {
                    out.println("warning: no samples can be expected from this run: " + why);
                }
                long start = host.cycles();
                long samples = host.run(micros, watch.listener(new ProgressPrinter(out)));
                long ranMicros = (host.cycles() - start) / Math.max(1, host.mhz());
                if (ranMicros < micros && watch.stopRequested()) {
                    // Stopped between two steps: what ran is kept, and Xen's books balance at every step.
                    out.printf("stopped by %s after %.3f of %d ms simulated: %d samples taken; %s%n",
                            watch.stopReason(), ranMicros / 1000.0, micros / 1000, samples, HostText.elapsed(host));
                    out.println("samples   " + HostText.statistics(host.xenoprof().statistics()));
                    return;
                }
                out.printf("ran %d ms simulated: %d samples taken; %s%n", micros / 1000, samples,
                        HostText.elapsed(host));
                if (samples == 0 && state != XenoprofState.PROFILING) {
                    out.println("no samples: Xenoprof was " + state + ", and samples are taken only while PROFILING; "
                            + HostText.nextStep(host));
                }
            });
        }
    }

    @Descriptor("show a domain's state, or pause, unpause or destroy it (xl pause/unpause/destroy)")
    public void domain(@Descriptor(DOMAIN_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.DOMAIN.syntax(), args, out -> {
            CommandLines.Domain line = CommandLines.domain(args);
            Host host = current(hosts);
            int id = line.domid();
            DomainInfo info = host.domain(id); // names the domains that exist when there is no such domain
            String name = HostText.domain(host, id);
            DomainState before = host.domainState(id);
            switch (line.action()) {
                case STATE -> {
                    out.println(name + ": " + HostText.stateText(before) + ", " + HostText.role(host, info));
                    return;
                }
                case PAUSE -> {
                    host.pauseDomain(id);
                    out.println(name + (before == DomainState.PAUSED ? " was already paused" : " paused")
                            + ": its vCPUs are not scheduled until hp:domain " + id + " unpause; samples already in"
                            + " its buffers stay there");
                }
                case UNPAUSE -> {
                    host.unpauseDomain(id);
                    out.println(name + (before == DomainState.PAUSED ? " unpaused" : " was not paused")
                            + ": its vCPUs are scheduled again");
                }
                case DESTROY -> {
                    String role = HostText.role(host, info);
                    host.destroyDomain(id);
                    out.println(name + " destroyed; it was " + role + ". It never runs again: Xenoprof freed its"
                            + " buffers and dropped it from the active and passive lists. What its daemon drained is"
                            + " kept; what was still in its buffers counts as undrained.");
                    out.println("This is permanent: only loading the host again (hp:load) brings dom" + id + " back.");
                }
            }
            out.println(name + " is now " + HostText.stateText(host.domainState(id)));
        });
    }

    /** The current host, or the reason there is none and how to get one. */
    static Host current(HostService hosts) {
        Optional<Host> host = hosts.current();
        if (host.isEmpty()) {
            throw new IllegalStateException("no host is loaded: hp:load loads the default scenario"
                    + " (hp:scenarios lists the others)");
        }
        return host.get();
    }
}
