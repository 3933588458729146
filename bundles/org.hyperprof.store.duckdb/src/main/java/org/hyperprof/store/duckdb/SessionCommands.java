package org.hyperprof.store.duckdb;

import java.util.List;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.QueryRows;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.SessionStores;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:name} and {@code hp:label}, what is said of a stored session after it is made (a session is
 * named by its id or its name), {@code hp:sql "SELECT ..."}, a read-only query over the store's
 * schema (README: "The session store") printed as the listings print: the store runs it on a connection
 * of its own that can read the store and nothing else ({@link SessionStore#query}), and {@code hp:replay ID}:
 * a stored session fed through the pipeline again, to every consumer bound now (a report installed since it
 * was recorded renders it; {@code hp:report --session ID} prints it).
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=name",
        "osgi.command.function=label", "osgi.command.function=sql", "osgi.command.function=replay"})
public final class SessionCommands {
    static final String NAME_ARGUMENTS = "<session> [<name>] [--clear]";

    static final Syntax NAME = Syntax.of("hp:name", "name a stored session (as hp:profile --name does), or rename it")
            .before("<session> [<name>]", Completion.SESSION)
            .options(Option.flag("--clear", "take its name away"))
            .notes("  <session>            its id or its name (hp:sessions lists them)\n"
                    + "  <name>               unique in the store, one line, not a number");

    static final String LABEL_ARGUMENTS = "<session> <label> [<label> ...] [--remove]";

    static final Syntax LABEL = Syntax.of("hp:label", "add labels to a stored session, or remove them")
            .before("<session> <label> [<label> ...]", Completion.SESSION)
            .options(Option.flag("--remove", "take these labels away"))
            .notes("  <session>            its id or its name (hp:sessions lists them)\n"
                    + "  <label>              one word without commas; hp:sessions --label <label> lists the"
                    + " sessions that have it");

    static final int DEFAULT_LIMIT = 1000;
    static final int MOST_LIMIT = 1_000_000;

    static final String SQL_ARGUMENTS = "<query> [--limit N] [--format text|json|csv]";

    static final Syntax SQL = Syntax.of("hp:sql", "a read-only SQL query over the stored sessions (DuckDB's SQL)")
            .before("<query>", Completion.NONE)
            .options(Option.value("--limit", "N", "print at most N rows (default " + DEFAULT_LIMIT + ", at most "
                    + MOST_LIMIT + "); how many more there were is said"), StoreCommands.FORMAT)
            .notes("  <query>              one statement, quoted as one word: hp:sql \"SELECT id, name FROM sessions\"\n"
                    + "  The tables are the schema's (README: \"The session store\"): sessions, samples, stacks,\n"
                    + "  names, mappings, truth. The query runs read-only, with access to files, the network and extensions\n"
                    + "  disabled and the engine's settings locked: it reads the store and nothing else.");

    static final String REPLAY_ARGUMENTS = "<id>";

    static final Syntax REPLAY = Syntax.of("hp:replay", "feed a stored session to every sample consumer again")
            .before(REPLAY_ARGUMENTS, Completion.SESSION)
            .notes("  The consumers see it start under its own id and end with the books it was recorded with;\n"
                    + "  a consumer that misses samples of the replay is named in the session's notes.");

    private final SessionStore store;
    private final Console console;

    @Activate
    public SessionCommands(@Reference SessionStore store) {
        this(store, Console.system());
    }

    /** Plain Java and tests. */
    SessionCommands(SessionStore store, Console console) {
        this.store = store;
        this.console = console;
    }

    /** The session a word names: its id (a number, as names never are) or its name. */
    static long session(SessionStore store, String word) throws UsageException, StoreException {
        if (SessionMarks.NUMBER.matcher(word.strip()).matches()) {
            return Args.sessionId(word);
        }
        return SessionStores.named(store, word);
    }

    @Descriptor("name a stored session (as hp:profile --name does), or rename it")
    public void name(@Descriptor(NAME_ARGUMENTS) String... args) {
        Guard.run(console, NAME, args, out -> {
            Args a = NAME.parse(args).atMostPositional(2, "a session and its name");
            boolean clear = a.flag("--clear");
            a.exactlyPositional(clear ? 1 : 2,
                    clear ? "--clear takes the session only" : "give the session and its name");
            long id = session(store, a.positional().get(0));
            String name = clear ? null : a.positional().get(1);
            found(store.name(id, name), id);
            out.println(clear ? "session " + id + " has no name" : "session " + id + " is named " + name.strip());
        });
    }

    @Descriptor("add labels to a stored session, or remove them")
    public void label(@Descriptor(LABEL_ARGUMENTS) String... args) {
        Guard.run(console, LABEL, args, out -> {
            Args a = LABEL.parse(args).atLeastPositional(2, "give the session and at least one label");
            long id = session(store, a.positional().get(0));
            List<String> labels = a.positional().subList(1, a.positional().size());
            found(store.label(id, labels, a.flag("--remove")), id);
            List<String> now = store.session(id).map(StoredSession::labels).orElse(List.of());
            out.println("session " + id + " labels: " + (now.isEmpty() ? "none" : String.join(",", now)));
        });
    }

    private static void found(boolean found, long id) {
        if (!found) {
            throw new IllegalArgumentException("no stored session " + id + " (hp:sessions lists them)");
        }
    }

    @Descriptor("a read-only SQL query over the stored sessions (DuckDB's SQL)")
    public void sql(@Descriptor(SQL_ARGUMENTS) String... args) {
        Guard.run(console, SQL, args, out -> {
            Args a = SQL.parse(args);
            String query = String.join(" ", a.positional());
            if (query.isBlank()) {
                throw new UsageException("give the query, quoted: hp:sql \"SELECT id, name FROM sessions\"");
            }
            int limit = a.value("--limit") == null ? DEFAULT_LIMIT
                    : (int) Args.number(a.value("--limit"), "--limit", 1, MOST_LIMIT);
            Table.Format format = Table.Format.of(a.value("--format"));
            QueryRows rows = store.query(query, limit);
            if (rows.columns().isEmpty()) {
                console.err().println("hp:sql: the statement gave no rows");
                return;
            }
            Table t = new Table(rows.columns().toArray(String[]::new));
            for (List<String> row : rows.rows()) {
                t.row(row.toArray());
            }
            t.print(out, format);
            if (rows.leftOff() > 0) {
                // Beside the rows, not among them: a script's JSON or CSV stays whole.
                (format == Table.Format.TEXT ? out : console.err()).println("(" + rows.leftOff() + " more rows left"
                        + " off: --limit " + limit + ")");
            }
        });
    }

    @Descriptor("feed a stored session to every sample consumer again")
    public void replay(@Descriptor(REPLAY_ARGUMENTS) String... args) {
        Guard.run(console, REPLAY, args, out -> out.println(replay(REPLAY.parse(args))));
    }

    /** Replays the session the words name; what it did, in a line. */
    private String replay(Args words) throws UsageException, StoreException {
        List<String> ids = words.atMostPositional(1, "one session id")
                .atLeastPositional(1, "name the session to replay by its id (hp:sessions lists them)").positional();
        long id = Args.sessionId(ids.get(0));
        SessionSummary replayed = store.replay(id).orElseThrow(() -> new IllegalArgumentException(
                "no stored session " + id + " (hp:sessions lists them)"));
        return "replayed session " + id + ": " + replayed.accounting().delivered() + " samples to the consumers"
                + " (hp:report --session " + id + " prints it)";
    }
}
