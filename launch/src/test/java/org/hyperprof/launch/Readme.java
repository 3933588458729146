package org.hyperprof.launch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * README.md as its test reads it (the rules are the README's own, in "This README is tested"): the
 * code blocks (indented by four spaces, or fenced), the commands in them, the output each shows,
 * and the markers before a block.
 * <ul>
 * <li>A command is a line that starts with {@code hp:} (a Gogo command line), {@code g! } (typed at
 * the prompt of {@code launch/hyperprof -i}), {@code launch/hyperprof} or {@code $ } (a shell
 * line). The other lines of a block after a command are its shown output; {@code ...} alone
 * skips any number of lines. A block without a command is not run (a build, another tool).</li>
 * <li>After a command, two spaces or more and then {@code (...)} to the end of the line is a note for
 * the reader, and {@code exit N} the status the command ends with (0 when not said).</li>
 * <li>The {@code hp:} lines of one block run as one script in one fresh framework; the {@code g!}
 * lines of one section (under one heading) run in one framework too, as a reader types them at
 * one prompt, before the section's shell lines that follow them.</li>
 * <li>{@code <!-- not run by the README test: reason -->} right before a block exempts it (at most
 * {@value #MOST_EXEMPTIONS} in the README); {@code <!-- numbers vary in this output: reason -->}
 * has the block's shown output compared with its digits masked.</li>
 * </ul>
 */
final class Readme {
    /** The marker of a block that is not run, followed by the reason. */
    static final String NOT_RUN = "not run by the README test:";
    /** The marker of a block whose shown output has numbers that vary from run to run, followed by why. */
    static final String NUMBERS_VARY = "numbers vary in this output:";
    static final int MOST_EXEMPTIONS = 5;

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*$");
    private static final Pattern FENCE = Pattern.compile("^( {0,3})(`{3,}|~{3,})");
    private static final Pattern MARKER = Pattern.compile("^<!--\\s*(.*?)\\s*-->\\s*$");
    /** A note for the reader after a command: two spaces or more, then a parenthesis to the end of the line. */
    private static final Pattern NOTE = Pattern.compile("^(.*?\\S)\\s{2,}\\(.*\\)\\s*$");
    /** The exit status a command is said to end with: {@code   exit 2} or {@code   exit 1, hp:models not run}. */
    private static final Pattern EXIT = Pattern.compile("^(.*?\\S)\\s{2,}exit (\\d+)(?:,.*)?$");
    /** A Gogo command that takes bundles, given an id (or the placeholder N) instead of a name or location. */
    private static final Pattern BUNDLE_ID = Pattern.compile("(?:^|[\\s'\"(;|])(?:felix:)?"
            + "(?:start|stop|uninstall|update|refresh|resolve|headers)(?:\\s+-\\S+)*\\s+(?:\\d+|N)(?=$|[\\s'\");|])");
    /**
     * Where the README or an output shows a session id: 63 random bits in decimal (the README's
     * examples were made when an id was the clock's milliseconds: 13 digits).
     */
    private static final Pattern SESSION_ID = Pattern.compile("\\b\\d{13,19}\\b");

    /** A line of the README: its number (from 1) and its text (in a block, without the block's indentation). */
    record Line(int number, String text) {
    }

    /** A marker comment: its line, its kind ({@link #NOT_RUN} or {@link #NUMBERS_VARY}) and its reason. */
    record Marker(int line, String kind, String reason) {
    }

    /** A code block: the heading it is under (its line and text), its lines, and the marker right before it. */
    record Block(Line section, List<Line> lines, Optional<Marker> marker) {
        boolean runs() {
            return marker.map(m -> !m.kind().equals(NOT_RUN)).orElse(true);
        }
    }

    enum Kind {
        /** A Gogo command line of a script. */
        GOGO,
        /** A Gogo command line typed at the prompt of {@code launch/hyperprof -i}. */
        PROMPT,
        /** A shell command line. */
        SHELL
    }

    /**
     * One command of the README: where it is, its kind, its text (without prompt, note or exit
     * status), the status it is said to end with, the output shown after it, and whether that
     * output's numbers vary.
     */
    record Command(Line line, Kind kind, String text, int status, List<String> shown, boolean numbersVary) {
        @Override
        public String toString() {
            return "README line " + line.number() + ": " + line.text().strip();
        }
    }

    /** What runs in one go: a Gogo script (in one framework) or one shell line. */
    record Step(List<Command> commands) {
        boolean gogo() {
            return commands.get(0).kind() != Kind.SHELL;
        }
    }

    /** The steps of one section, in the order they run. */
    record Section(Line heading, List<Step> steps) {
    }

    final List<Block> blocks = new ArrayList<>();
    final List<Marker> markers = new ArrayList<>();
    /** What the README does against the rules (a marker that marks nothing, a reason missing, ...). */
    final List<String> problems = new ArrayList<>();
    private final List<Section> sections;

    Readme(String text) {
        String[] lines = text.split("\n", -1);
        Line section = new Line(0, "(top)");
        Marker pending = null;
        boolean blankBefore = true;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            List<Line> block = new ArrayList<>();
            Matcher fence = FENCE.matcher(line);
            boolean fenced = fence.lookingAt();
            if (fenced || blankBefore && indented(line)) {
                i = fenced ? fencedBlock(lines, i, fence, block) : indentedBlock(lines, i, block);
                blocks.add(new Block(section, block, Optional.ofNullable(pending)));
                pending = null;
                blankBefore = false;
                continue;
            }
            Matcher marker = MARKER.matcher(line);
            String kind = marker.matches() ? markerKind(marker.group(1)) : null;
            if (kind != null) {
                Marker m = new Marker(i + 1, kind, marker.group(1).substring(kind.length()).strip());
                markers.add(m);
                if (m.reason().isEmpty()) {
                    problems.add("the marker of line " + m.line() + " gives no reason");
                }
                if (pending != null) {
                    problems.add("line " + pending.line() + ": a marker marks the block right after it");
                }
                pending = m;
            } else if (!line.isBlank() && pending != null) {
                problems.add("line " + pending.line() + ": a marker marks the block right after it, and line " + (i + 1)
                        + " is no block");
                pending = null;
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                section = new Line(i + 1, heading.group(1));
            }
            blankBefore = line.isBlank();
        }
        if (pending != null) {
            problems.add("line " + pending.line() + ": a marker at the end marks no block");
        }
        long exemptions = exemptions().size();
        if (exemptions > MOST_EXEMPTIONS) {
            problems.add(exemptions + " blocks are marked '" + NOT_RUN + "': at most " + MOST_EXEMPTIONS + " may be");
        }
        sections = group();
    }

    /** Reads the lines of a fenced block opened at {@code open} into {@code block}; the index of its closing fence. */
    private static int fencedBlock(String[] lines, int open, Matcher fence, List<Line> block) {
        String close = fence.group(2);
        int indent = fence.group(1).length();
        int i = open + 1;
        for (; i < lines.length && !lines[i].strip().startsWith(close); i++) {
            block.add(new Line(i + 1, lines[i].substring(Math.min(indent, leading(lines[i])))));
        }
        return i;
    }

    /** Reads an indented block from {@code first} on into {@code block}, unindented; the index of its last line. */
    private static int indentedBlock(String[] lines, int first, List<Line> block) {
        int i = first;
        for (; i < lines.length && (indented(lines[i]) || lines[i].isBlank()); i++) {
            String line = lines[i];
            block.add(new Line(i + 1, line.isBlank() ? "" : line.substring(line.charAt(0) == '\t' ? 1 : 4)));
        }
        return i - 1;
    }

    private static String markerKind(String comment) {
        return comment.startsWith(NOT_RUN) ? NOT_RUN : comment.startsWith(NUMBERS_VARY) ? NUMBERS_VARY : null;
    }

    private static int leading(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return n;
    }

    private static boolean indented(String line) {
        return line.startsWith("    ") || line.startsWith("\t");
    }

    List<Marker> exemptions() {
        return markers.stream().filter(m -> m.kind().equals(NOT_RUN)).toList();
    }

    /** The kind of command a line of a block is, or null for a line that is no command. */
    private static Kind kind(String text) {
        if (text.startsWith("hp:")) {
            return Kind.GOGO;
        }
        if (text.startsWith("g! ")) {
            return Kind.PROMPT;
        }
        return text.startsWith("launch/hyperprof") || text.startsWith("$ ") ? Kind.SHELL : null;
    }

    /** The commands of a block, each with the output shown after it. */
    static List<Command> commands(Block block) {
        List<Command> commands = new ArrayList<>();
        Line command = null;
        List<String> shown = new ArrayList<>();
        for (Line line : block.lines()) {
            if (kind(line.text()) != null) {
                if (command != null) {
                    commands.add(command(command, shown, block));
                }
                command = line;
                shown = new ArrayList<>();
            } else if (command != null && !line.text().isBlank()) {
                shown.add(line.text());
            }
        }
        if (command != null) {
            commands.add(command(command, shown, block));
        }
        return commands;
    }

    private static Command command(Line line, List<String> shown, Block block) {
        Kind kind = kind(line.text());
        String text = line.text();
        if (kind == Kind.PROMPT) {
            text = text.substring("g! ".length());
        } else if (text.startsWith("$ ")) {
            text = text.substring("$ ".length());
        }
        int status = 0;
        Matcher exit = EXIT.matcher(text);
        if (exit.matches()) {
            text = exit.group(1);
            status = Integer.parseInt(exit.group(2));
        }
        Matcher note = NOTE.matcher(text);
        if (note.matches()) {
            text = note.group(1);
        }
        boolean numbersVary = block.marker().map(m -> m.kind().equals(NUMBERS_VARY)).orElse(false);
        return new Command(line, kind, text.strip(), status, List.copyOf(shown), numbersVary);
    }

    /** The lines that tell a reader what to type: the commands, and every line of a block without one. */
    List<Line> instructions() {
        List<Line> instructions = new ArrayList<>();
        for (Block block : blocks) {
            List<Command> commands = commands(block);
            if (commands.isEmpty()) {
                block.lines().stream().filter(l -> !l.text().isBlank()).forEach(instructions::add);
            } else {
                commands.forEach(c -> instructions.add(c.line()));
            }
        }
        return instructions;
    }

    /** Whether an instruction names a bundle by its id, which changes whenever bundles are added. */
    static boolean usesBundleId(String instruction) {
        return BUNDLE_ID.matcher(instruction).find();
    }

    /** The sections with commands that run, each with its steps in the order they run. */
    List<Section> sections() {
        return sections;
    }

    private List<Section> group() {
        Map<Line, List<Step>> bySection = new LinkedHashMap<>();
        Map<Line, Step> prompts = new LinkedHashMap<>();
        Map<Line, Boolean> shellAfterPrompt = new LinkedHashMap<>();
        for (Block block : blocks) {
            if (!block.runs()) {
                continue;
            }
            Line section = block.section();
            Step script = null;
            for (Command c : commands(block)) {
                List<Step> steps = bySection.computeIfAbsent(section, s -> new ArrayList<>());
                switch (c.kind()) {
                case SHELL -> {
                    steps.add(new Step(List.of(c)));
                    script = null;
                    shellAfterPrompt.put(section, prompts.containsKey(section));
                }
                case GOGO -> {
                    if (script == null) {
                        script = new Step(new ArrayList<>());
                        steps.add(script);
                    }
                    script.commands().add(c);
                }
                case PROMPT -> {
                    Step prompt = prompts.get(section);
                    if (prompt == null) {
                        prompt = new Step(new ArrayList<>());
                        prompts.put(section, prompt);
                        steps.add(prompt);
                    } else if (shellAfterPrompt.getOrDefault(section, false)) {
                        problems.add(c + ": a g! line after a shell line of its section; the section's prompt"
                                + " session runs whole before the shell lines after its first g! line");
                    }
                    prompt.commands().add(c);
                }
                }
                if (c.kind() != Kind.SHELL && c.status() != 0) {
                    problems.add(c + ": only a shell line may be said to exit with a status other than 0");
                }
            }
        }
        List<Section> result = new ArrayList<>();
        bySection.forEach((heading, steps) -> result.add(new Section(heading, steps)));
        return result;
    }

    /**
     * Whether the output shown after a command is in what it printed; null when it is, else what is
     * missing. The shown lines are excerpts separated by {@code ...} lines, each a run of
     * consecutive lines of the output, in order; a shown line ending in {@code " ..."} matches a
     * line that begins with the text before it. Lines are compared without their leading and
     * trailing spaces, runs of spaces as one, blank lines left out; session ids (13 to 19
     * digits) match any session id, and with
     * {@code numbersVary} every number matches any number.
     */
    static String missing(List<String> shown, String output, boolean numbersVary) {
        List<String> actual = output.lines().map(l -> normal(l, numbersVary)).filter(l -> !l.isEmpty()).toList();
        List<List<String>> excerpts = new ArrayList<>();
        List<String> excerpt = new ArrayList<>();
        for (String line : shown) {
            if (line.strip().equals("...")) {
                excerpts.add(excerpt);
                excerpt = new ArrayList<>();
            } else {
                excerpt.add(normal(line, numbersVary));
            }
        }
        excerpts.add(excerpt);
        int from = 0;
        for (List<String> e : excerpts) {
            if (e.isEmpty()) {
                continue;
            }
            int at = find(e, actual, from);
            if (at < 0) {
                return "the shown lines\n    " + String.join("\n    ", e) + "\n  are not in the output"
                        + (from > 0 ? " after its line " + from + " (where the excerpt before them ended)" : "");
            }
            from = at + e.size();
        }
        return null;
    }

    private static int find(List<String> excerpt, List<String> actual, int from) {
        for (int at = from; at + excerpt.size() <= actual.size(); at++) {
            boolean all = true;
            for (int k = 0; k < excerpt.size() && all; k++) {
                all = matches(excerpt.get(k), actual.get(at + k));
            }
            if (all) {
                return at;
            }
        }
        return -1;
    }

    private static boolean matches(String shown, String actual) {
        return shown.endsWith(" ...") ? actual.startsWith(shown.substring(0, shown.length() - 4))
                : shown.equals(actual);
    }

    private static String normal(String line, boolean numbersVary) {
        String s = SESSION_ID.matcher(line.strip().replaceAll("\\s+", " ")).replaceAll("<session>");
        return numbersVary ? s.replaceAll("\\d+", "0") : s;
    }
}
