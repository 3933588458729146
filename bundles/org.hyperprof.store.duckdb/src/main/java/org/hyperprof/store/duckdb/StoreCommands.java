package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreInfo;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;
import org.hyperprof.command.kit.When;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The store's Gogo commands, in scope {@code hp}: {@code hp:sessions} lists the stored sessions,
 * newest first; {@code hp:store} says where the store is and what it holds.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=sessions",
        "osgi.command.function=store", "osgi.command.function=delete"})
public final class StoreCommands {
    static final Option FORMAT = Option.choice("--format", List.of("text", "json", "csv"),
            "text (aligned columns, the default), json (an array of objects) or csv (RFC 4180, a header row)");

    static final String SESSIONS_ARGUMENTS = "[--all] [--since time] [--source name] [--name name] [--label label]..."
            + " [--format text|json|csv]";

    static final Syntax SESSIONS = Syntax.of("hp:sessions", "list the stored sessions, newest first")
            .options(Option.flag("--all", "also the sessions marked hidden (those hp:study makes)"),
                    Option.value("--since", "time", "only sessions started since then: a date (2026-11-27), a"
                            + " local date and time (2026-11-27T14:30), an instant (2026-11-27T14:30:00Z) or an"
                            + " age (90s, 30m, 12h, 7d)"),
                    Option.value("--source", "name", "only sessions of this source (simulator, perf.data, ...)"),
                    Option.value("--name", "name", "only the session of this name (hp:profile --name, hp:name)"),
                    Option.value("--label", "label", "only sessions with this label (hp:label); given twice, with"
                            + " both").repeatable(),
                    FORMAT);

    static final String STORE_ARGUMENTS = "[--prune] [--format text|json|csv]";

    static final Syntax STORE = Syntax.of("hp:store", "where the session store is, its size, sessions and schema"
            + " version").options(Option.flag("--prune", "first apply retention.count and retention.age now (they"
                    + " apply after each stored session anyway) and say what was deleted"), FORMAT);

    static final String DELETE_ARGUMENTS = "<id> [<id> ...]";

    static final Syntax DELETE = Syntax.of("hp:delete", "delete stored sessions and all their rows")
            .before(DELETE_ARGUMENTS, Completion.SESSION)
            .notes("  Every id must name a stored session (hp:sessions lists them); otherwise none is deleted.");

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

    private final SessionStore store;
    private final Console console;
    private final ZoneId zone;

    @Activate
    public StoreCommands(@Reference SessionStore store) {
        this(store, Console.system(), ZoneId.systemDefault());
    }

    /** Plain Java (the benchmarks): what the commands print goes to {@code out}, their errors to {@code err}. */
    public StoreCommands(SessionStore store, PrintStream out, PrintStream err) {
        this(store, Console.of(out, err), ZoneId.systemDefault());
    }

    /** Plain Java and tests. */
    StoreCommands(SessionStore store, Console console, ZoneId zone) {
        this.store = store;
        this.console = console;
        this.zone = zone;
    }

    @Descriptor("list the stored sessions, newest first")
    public void sessions(@Descriptor(SESSIONS_ARGUMENTS) String... args) {
        Guard.run(console, SESSIONS, args, out -> {
            Args a = SESSIONS.parse(args).atMostPositional(0, "options only");
            Instant since = a.value("--since") == null ? null : since(a.value("--since"), Instant.now());
            List<StoredSession> sessions = store.sessions(new SessionQuery(a.flag("--all"), since,
                    a.value("--source"), 0)).stream()
                    .filter(s -> a.value("--name") == null || a.value("--name").strip().equals(s.name()))
                    .filter(s -> s.labels().containsAll(a.values("--label"))).toList();
            String format = a.value("--format");
            if (sessions.isEmpty() && (format == null || format.equals("text"))) {
                boolean filtered = Stream.of("--since", "--source", "--name", "--label").anyMatch(o -> a.value(o) != null);
                out.println("no stored sessions" + (filtered ? " match" : "") + " (the store: hp:store)");
                return;
            }
            Table l = new Table("ID", "NAME", "WHEN", "HOST", "SOURCE", "WHAT", "CPU", "EVENTS", "SAMPLES", "STATUS",
                    "LABELS");
            for (StoredSession s : sessions) {
                l.row(s.id(), s.name(), WHEN.format(s.startedAt().atZone(zone)), s.hostId(), s.source(), s.what(),
                        s.cpuType(), String.join(",", s.events()), s.samples(), s.status(), String.join(",", s.labels()));
            }
            l.print(out, Table.Format.of(format));
        });
    }

    @Descriptor("where the session store is, its size, sessions and schema version")
    public void store(@Descriptor(STORE_ARGUMENTS) String... args) {
        Guard.run(console, STORE, args, out -> {
            Args a = STORE.parse(args).atMostPositional(0, "options only");
            if (a.flag("--prune")) {
                console.err().println(store.prune().orElse("retention deleted nothing (hp:config org.hyperprof.store"
                        + " shows retention.count and retention.age)"));
            }
            StoreInfo info = store.info();
            new Table("PATH", "BYTES", "SESSIONS", "SCHEMA").row(info.path(), info.bytes(), info.sessions(),
                    info.schemaVersion()).print(out, Table.Format.of(a.value("--format")));
        });
    }

    @Descriptor("delete stored sessions and all their rows")
    public void delete(@Descriptor(DELETE_ARGUMENTS) String... args) {
        Guard.run(console, DELETE, args, out -> {
            Args a = DELETE.parse(args)
                    .atLeastPositional(1, "name the sessions to delete by their ids (hp:sessions lists them)");
            List<Long> ids = Args.sessionIds(a.positional());
            // All or none: a typo in one id deletes nothing.
            List<Long> unknown = new ArrayList<>();
            for (long id : ids) {
                if (store.session(id).isEmpty()) {
                    unknown.add(id);
                }
            }
            if (!unknown.isEmpty()) {
                throw new IllegalArgumentException("no stored session " + unknown.stream().map(String::valueOf)
                        .collect(Collectors.joining(", ")) + " (hp:sessions lists them); nothing"
                        + " was deleted");
            }
            for (long id : ids) {
                store.delete(id);
                out.println("deleted session " + id);
            }
        });
    }

    /** The instant {@code --since} names, ages counted back from {@code now}. */
    Instant since(String text, Instant now) throws UsageException {
        return When.instant(text, "--since", now, zone);
    }
}
