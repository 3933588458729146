package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * One opcontrol invocation, parsed: exactly one action and the options that go with it.
 * Accepts {@code --option=value} and {@code --option value}.
 *
 * <p>Without an action, {@code --active-domains} and {@code --passive-domains} write the driver's
 * files at once, as {@code echo 0,1 > /dev/oprofile/active_domains} does (Hyperprof keeps no
 * daemonrc to store settings in). {@code --hold} and {@code --release} are Hyperprof simulation
 * controls, not options of the real opcontrol: they make a daemon stop and resume draining.
 */
final class OpcontrolCommand {

    /** What opcontrol is asked to do. */
    enum Action {
        INIT("--init", "load the driver: XENOPROF_init"),
        START_DAEMON("--start-daemon", "set up the counters and buffers and start the daemon"),
        START("--start", "start sampling (the primary makes the start hypercall)"),
        STOP("--stop", "stop sampling and flush the buffers"),
        DUMP("--dump", "drain this domain's buffers now and hand the samples to the consumers"),
        SHUTDOWN("--shutdown", "stop, drain and end the daemon; the primary's shutdown ends the session"),
        DEINIT("--deinit", "unload the driver (the primary gives up its role: XENOPROF_shutdown)"),
        STATUS("--status", "print the daemon's state and Xenoprof's"),
        RESET("--reset", "clear this domain's collected samples"),
        HOLD("--hold", "simulation control, not a real opcontrol option: the daemon stops reading its buffers"
                + " (VIRQs, --dump and the session's last drain are ignored) until --release"),
        RELEASE("--release", "simulation control, not a real opcontrol option: a held daemon reads again and"
                + " drains at once"),
        /** No action given, only domain lists: write the oprofilefs files now. */
        WRITE_LISTS("(no action)", "with only --active-domains / --passive-domains: write those driver files now");

        final String flag;
        final String help;

        Action(String flag, String help) {
            this.flag = flag;
            this.help = help;
        }
    }

    /** The Linux driver's {@code MAX_XENOPROF_SAMPLES}: slots it asks for per vCPU buffer. */
    static final int DEFAULT_MAX_SAMPLES = 16;
    /** Slots the driver asks for per vCPU buffer of each passive domain. */
    static final int PASSIVE_MAX_SAMPLES = 2048;
    /** {@code MAX_OPROF_DOMAINS}: ids the active_domains and passive_domains files accept. */
    static final int MAX_OPROF_DOMAINS = 25;
    /** {@link #callgraph} when {@code --callgraph} was not given. */
    static final int NO_CALLGRAPH = -1;

    static final String ACTIVE_FILE = "/dev/oprofile/active_domains";
    static final String PASSIVE_FILE = "/dev/oprofile/passive_domains";

    final Action action;
    final List<String> events;
    /** The raw text written to {@code /dev/oprofile/active_domains}, or null when not given. */
    final String activeDomains;
    /** The raw text written to {@code /dev/oprofile/passive_domains}, or null when not given. */
    final String passiveDomains;
    /** The {@code --passive-images} entries in the order of the passive domains ("" = none), or empty. */
    final List<String> passiveImages;
    final String xenImage;
    final String vmlinux;
    final int maxSamples;
    /** {@code --callgraph} depth, or {@link #NO_CALLGRAPH}. */
    final int callgraph;

    private OpcontrolCommand(Action action, List<String> events, String activeDomains, String passiveDomains,
            List<String> passiveImages, String xenImage, String vmlinux, int maxSamples, int callgraph) {
        this.action = action;
        this.events = List.copyOf(events);
        this.activeDomains = activeDomains;
        this.passiveDomains = passiveDomains;
        this.passiveImages = List.copyOf(passiveImages);
        this.xenImage = xenImage;
        this.vmlinux = vmlinux;
        this.maxSamples = maxSamples;
        this.callgraph = callgraph;
    }

    /** A command line opcontrol does not understand; the message lists what it does. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message + System.lineSeparator() + usage());
        }
    }

    static OpcontrolCommand parse(List<String> args) throws UsageException {
        Action action = null;
        List<String> events = new ArrayList<>();
        String active = null;
        String passive = null;
        String images = null;
        String xen = null;
        String vmlinux = null;
        int maxSamples = DEFAULT_MAX_SAMPLES;
        int callgraph = NO_CALLGRAPH;
        List<String> setupOptions = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i).trim();
            if (arg.isEmpty()) {
                continue;
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            name = canonical(name.toLowerCase(Locale.ROOT));
            Action a = actionOf(name);
            if (a != null) {
                if (value != null) {
                    throw new UsageException("'" + arg + "': the action " + name + " takes no value");
                }
                if (action != null && action != a) {
                    throw new UsageException("give one action per opcontrol call; got " + action.flag + " and " + a.flag);
                }
                action = a;
                continue;
            }
            if (name.equals("--no-vmlinux")) {
                setupOptions.add(name);
                continue;
            }
            if (!takesValue(name)) {
                throw new UsageException("unknown option '" + arg + "'");
            }
            if (value == null) {
                if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                    value = args.get(++i);
                } else {
                    throw new UsageException("option " + name + " needs a value: " + name + "=...");
                }
            }
            setupOptions.add(name);
            switch (name) {
                case "--event" -> events.add(value.trim());
                case "--active-domains" -> {
                    if (active != null) {
                        throw new UsageException("--active-domains given twice; list every id once: --active-domains=0,1");
                    }
                    active = value;
                }
                case "--passive-domains" -> {
                    if (passive != null) {
                        throw new UsageException("--passive-domains (or --domains) given twice; list every id once:"
                                + " --passive-domains=1,2");
                    }
                    passive = value;
                }
                case "--passive-images" -> {
                    if (images != null) {
                        throw new UsageException("--passive-images (or --domains-images) given twice; give one"
                                + " comma-separated list in the order of --passive-domains");
                    }
                    images = value;
                }
                case "--xen" -> xen = value.trim();
                case "--vmlinux" -> vmlinux = value.trim();
                case "--buffer-size" -> maxSamples = positive(name, value);
                case "--callgraph" -> callgraph = depth(value);
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        if (action == null) {
            boolean onlyLists = !setupOptions.isEmpty() && setupOptions.stream()
                    .allMatch(o -> o.equals("--active-domains") || o.equals("--passive-domains"));
            if (!onlyLists) {
                throw new UsageException("no action given");
            }
            action = Action.WRITE_LISTS;
        } else if (action != Action.START_DAEMON && !setupOptions.isEmpty()) {
            throw new UsageException(String.join(", ", setupOptions) + " only apply to --start-daemon, not to "
                    + action.flag);
        }
        List<String> imageList = images == null ? List.of() : splitImages(images);
        if (!imageList.isEmpty() && passive == null) {
            throw new UsageException("--passive-images gives the kernel image of each passive domain, in the order"
                    + " of --passive-domains, so it needs --passive-domains in the same command, e.g."
                    + " --passive-domains=1,2 --passive-images=vmlinux-1,vmlinux-2");
        }
        return new OpcontrolCommand(action, events, active, passive, imageList, xen, vmlinux, maxSamples, callgraph);
    }

    /** The Xen patch's aliases: {@code --domains} and {@code --domains-images}. */
    private static String canonical(String name) {
        return switch (name) {
            case "--domains" -> "--passive-domains";
            case "--domains-images" -> "--passive-images";
            default -> name;
        };
    }

    private static Action actionOf(String name) {
        for (Action a : Action.values()) {
            if (a != Action.WRITE_LISTS && a.flag.equals(name)) {
                return a;
            }
        }
        return null;
    }

    private static boolean takesValue(String name) {
        return switch (name) {
            case "--event", "--active-domains", "--passive-domains", "--passive-images", "--xen", "--vmlinux",
                    "--buffer-size", "--callgraph" -> true;
            default -> false;
        };
    }

    private static int positive(String name, String value) throws UsageException {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 2) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below with the expected form
        }
        throw new UsageException(name + "=" + value + ": expected the number of slots per vCPU buffer, from 2 (one"
                + " slot always stays empty) to " + Integer.MAX_VALUE + "; Xen clamps it to the 32-page limit");
    }

    private static int depth(String value) throws UsageException {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below with the expected form
        }
        throw new UsageException("--callgraph=" + value + ": expected the call-trace depth, a number of return"
                + " addresses per sample from 0 to " + Integer.MAX_VALUE + " such as --callgraph=6 (0 turns call"
                + " traces off)");
    }

    /** Entries separated by commas; blanks around an entry are trimmed and an empty entry means "none". */
    private static List<String> splitImages(String text) {
        List<String> out = new ArrayList<>();
        for (String s : text.split(",", -1)) {
            out.add(s.trim());
        }
        // A trailing empty entry from "a,b," adds nothing.
        while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
            out.remove(out.size() - 1);
        }
        return Collections.unmodifiableList(out);
    }

    /** What {@link #parseActiveDomains} parses for the active_domains file. */
    static int[] parseActiveDomains(String text) throws DomainListException {
        return parseDomainList(text, ACTIVE_FILE);
    }

    /**
     * Parses what is written to a domain list file ({@code /dev/oprofile/active_domains} or
     * {@code passive_domains}) the way the driver's oprofilefs files did: ids separated by
     * punctuation or white space, at most {@value #MAX_OPROF_DOMAINS}.
     *
     * @throws DomainListException for junk or too many ids (the write fails with -EINVAL)
     */
    static int[] parseDomainList(String text, String file) throws DomainListException {
        List<Integer> ids = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || isPunctuation(c)) {
                i++;
                continue;
            }
            if (c < '0' || c > '9') {
                throw new DomainListException(file, "'" + text + "': '" + text.substring(i)
                        + "' is not a domain id; expected decimal ids separated by commas or spaces, e.g. 0,1");
            }
            int start = i;
            while (i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                i++;
            }
            if (i < n && !Character.isWhitespace(text.charAt(i)) && !isPunctuation(text.charAt(i))) {
                throw new DomainListException(file, "'" + text + "': trailing junk after id " + text.substring(start, i)
                        + "; expected decimal ids separated by commas or spaces, e.g. 0,1");
            }
            String digits = text.substring(start, i);
            if (digits.length() > 5 || Integer.parseInt(digits) > 0xFFFF) {
                throw new DomainListException(file, "'" + text + "': " + digits
                        + " does not fit a domid_t (16 bits); domain ids are small numbers such as 0 or 1");
            }
            ids.add(Integer.parseInt(digits));
            if (ids.size() > MAX_OPROF_DOMAINS) {
                throw new DomainListException(file, "'" + text + "' lists more than " + MAX_OPROF_DOMAINS
                        + " domains (MAX_OPROF_DOMAINS); list at most 25 domains in " + file);
            }
        }
        int[] out = new int[ids.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = ids.get(k);
        }
        return out;
    }

    private static boolean isPunctuation(char c) {
        return c < 128 && !Character.isLetterOrDigit(c) && c > ' ' && c != 127;
    }

    /** The driver refused what was written to a domain list file (-EINVAL). */
    static final class DomainListException extends Exception {
        private static final long serialVersionUID = 1L;
        final String file;

        DomainListException(String file, String message) {
            super(message);
            this.file = file;
        }
    }

    static String usage() {
        StringBuilder b = new StringBuilder("usage: opcontrol <action> [options], run as one domain. Actions:");
        for (Action a : Action.values()) {
            if (a != Action.WRITE_LISTS) {
                b.append(System.lineSeparator()).append(String.format("  %-15s %s", a.flag, a.help));
            }
        }
        String nl = System.lineSeparator();
        b.append(nl).append("Options of --start-daemon:")
                .append(nl).append("  --event=EVENT:count[:unitmask[:kernel[:user]]]  (repeatable; primary only)")
                .append(nl).append("  --active-domains=0,1   domains to profile actively (primary only)")
                .append(nl).append("  --passive-domains=2,3  domains the primary profiles passively (alias --domains)")
                .append(nl).append("  --passive-images=a,b   kernel image of each passive domain, in that order: an image"
                        + " name of the domain or a symbol file path (alias --domains-images)")
                .append(nl).append("  --callgraph=N          call-trace depth: up to N return addresses per sample (primary)")
                .append(nl).append("  --xen=<xen-syms> --vmlinux=<vmlinux> --no-vmlinux  (images, informative)")
                .append(nl).append("  --buffer-size=N        slots per vCPU buffer to ask Xen for (the driver asked for 16)")
                .append(nl).append("Without an action, --active-domains=... and --passive-domains=... write those"
                        + " driver files at once (as echo ids > " + ACTIVE_FILE + ").");
        return b.toString();
    }
}
