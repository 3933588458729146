package org.hyperprof.shell;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.apache.felix.service.command.Function;
import org.hyperprof.api.host.StopRequests;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Makes Gogo's JLine prompt Hyperprof's: the history kept in {@code ~/.hyperprof/history}, Tab
 * completion of the {@code hp:} commands' options and values ({@link Completions}), {@code exit},
 * and Ctrl-C that stops a running {@code hp:run} as {@link CommandLineStops} does. gogo.jline reads
 * no profile of ours, so this is done in the session itself the first time it runs something (its
 * own gosh_profile, before the first prompt); a session without a line reader (scripted) is left as
 * it is. Enabled by {@link ConsoleChoice} only where the JLine console starts.
 */
@Component(service = CommandSessionListener.class, enabled = false)
public final class InteractivePrompt implements CommandSessionListener {
    /** The history file, under the user's home; readable by its owner only. */
    static final String HISTORY = ".hyperprof/history";

    /** Session variable marking a session set up (JLine's session variables: the reader's and Gogo's). */
    private static final String SET_UP = ".hyperprof.prompt";
    /** The completion function's name in the session; '_' keeps it out of the command list. */
    private static final String CANDIDATES = "__hp_candidates";
    /** How Tab calls it: the words of the line and the index of the word completed. */
    private static final String CANDIDATES_CALL = CANDIDATES + " ($.commandLine words) ($.commandLine wordIndex)";
    /** The variables {@link #complete} passes its words in. */
    private static final String COMPLETE_COMMAND = "__hp_command";
    private static final String COMPLETE_VALUE = "__hp_value";

    private final BundleContext context;
    private final Completions completions;
    private final StopRequests stops;

    @Activate
    public InteractivePrompt(BundleContext context, @Reference(name = "completions") Completions completions,
            @Reference(name = "stops") StopRequests stops) {
        this.context = context;
        this.completions = completions;
        this.stops = stops;
    }

    @Override
    public void beforeExecute(CommandSession session, CharSequence command) {
        // gogo.jline puts the line reader and the completion table in a session with a prompt.
        if (session.get(".reader") == null || !(session.get(".completions") instanceof Map)) {
            return;
        }
        try {
            if (session.get(SET_UP) == null) {
                session.put(SET_UP, Boolean.TRUE);
                keepHistory(session);
                declareCompletions(session);
                session.put("exit", (Function) (s, args) -> exit());
            }
            if (stops instanceof CommandLineStops commandLine) {
                PromptInterrupts.takeOver(session.get(".terminal"), () -> session.foregroundJob() != null,
                        () -> commandLine.request(CommandLineStops.Request.CTRL_C));
            }
        } catch (Exception | LinkageError e) {
            // LinkageError: no JLine API for this bundle, and Ctrl-C stays the console's.
            System.err.println("hyperprof: the prompt is not fully set up: " + e);
        }
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Exception exception) {
        // Only the start of a session matters here.
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Object result) {
        // Only the start of a session matters here.
    }

    /**
     * The line reader's history in {@code ~/.hyperprof/history} (created owner-only, as shell
     * histories are), loaded now: JLine loaded Gogo's own before the session ran anything.
     */
    private void keepHistory(CommandSession session) throws Exception {
        Path file = Path.of(context.getProperty("user.home")).resolve(HISTORY);
        if (!Files.exists(file)) {
            Files.createDirectories(file.getParent(), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        session.put("history-file", file);
        session.execute("($.reader history) load");
    }

    /** Gogo's {@code complete} for each hp: command and each framework command that takes a bundle. */
    private void declareCompletions(CommandSession session) throws Exception {
        session.put(CANDIDATES, (Function) (s, args) -> completions.candidates(words(args), index(args)));
        for (Completions.Usage u : completions.usages()) {
            complete(session, u.command(), "-e", null);
            complete(session, u.command(), "-d", u.summary());
            for (String option : Completions.options(u.arguments())) {
                complete(session, u.command(), "-l", option.substring(2));
            }
            complete(session, u.command(), "-a", CANDIDATES_CALL);
        }
        for (String command : Completions.BUNDLE_COMMANDS) {
            complete(session, command, "-a", CANDIDATES_CALL);
        }
        session.put(COMPLETE_COMMAND, null);
        session.put(COMPLETE_VALUE, null);
    }

    /** One {@code complete -c command flag value}; the words pass through variables, so nothing needs quoting. */
    private static void complete(CommandSession session, String command, String flag, String value) throws Exception {
        session.put(COMPLETE_COMMAND, command);
        session.put(COMPLETE_VALUE, value);
        session.execute("complete -c $" + COMPLETE_COMMAND + " " + flag + (value == null ? "" : " $" + COMPLETE_VALUE));
    }

    private static List<String> words(List<Object> args) {
        List<String> words = new ArrayList<>();
        if (!args.isEmpty() && args.get(0) instanceof List<?> l) {
            l.forEach(w -> words.add(String.valueOf(w)));
        }
        return words;
    }

    private static int index(List<Object> args) {
        return args.size() > 1 && args.get(1) instanceof Number n ? n.intValue() : -1;
    }

    /**
     * {@code exit}: the framework stops, as with {@code stop 0}; the JLine console closes with it
     * and launch/hyperprof -i exits 0.
     */
    private Object exit() throws BundleException {
        context.getBundle(0).stop();
        return null;
    }
}
