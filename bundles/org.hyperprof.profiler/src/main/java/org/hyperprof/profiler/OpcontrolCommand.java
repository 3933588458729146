package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One opcontrol invocation, parsed: exactly one action and the options that go with it.
 * Accepts {@code --option=value} and {@code --option value}.
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
        RESET("--reset", "clear this domain's collected samples");

        final String flag;
        final String help;

        Action(String flag, String help) {
            this.flag = flag;
            this.help = help;
        }
    }

    /** The Linux driver's {@code MAX_XENOPROF_SAMPLES}: slots it asks for per vCPU buffer. */
    static final int DEFAULT_MAX_SAMPLES = 16;
    /** {@code MAX_OPROF_DOMAINS}: ids the active_domains file accepts. */
    static final int MAX_OPROF_DOMAINS = 25;

    final Action action;
    final List<String> events;
    /** The raw text written to {@code /dev/oprofile/active_domains}, or null when not given. */
    final String activeDomains;
    final String xenImage;
    final String vmlinux;
    final int maxSamples;

    private OpcontrolCommand(Action action, List<String> events, String activeDomains, String xenImage,
            String vmlinux, int maxSamples) {
        this.action = action;
        this.events = List.copyOf(events);
        this.activeDomains = activeDomains;
        this.xenImage = xenImage;
        this.vmlinux = vmlinux;
        this.maxSamples = maxSamples;
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
        String xen = null;
        String vmlinux = null;
        int maxSamples = DEFAULT_MAX_SAMPLES;
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
            name = name.toLowerCase(Locale.ROOT);
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
                case "--xen" -> xen = value.trim();
                case "--vmlinux" -> vmlinux = value.trim();
                case "--buffer-size" -> maxSamples = positive(name, value);
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        if (action == null) {
            throw new UsageException("no action given");
        }
        if (action != Action.START_DAEMON && !setupOptions.isEmpty()) {
            throw new UsageException(String.join(", ", setupOptions) + " only apply to --start-daemon, not to "
                    + action.flag);
        }
        return new OpcontrolCommand(action, events, active, xen, vmlinux, maxSamples);
    }

    private static Action actionOf(String name) {
        for (Action a : Action.values()) {
            if (a.flag.equals(name)) {
                return a;
            }
        }
        return null;
    }

    private static boolean takesValue(String name) {
        return switch (name) {
            case "--event", "--active-domains", "--xen", "--vmlinux", "--buffer-size" -> true;
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
        throw new UsageException(name + "=" + value + ": expected the number of slots per vCPU buffer, at least 2"
                + " (one slot always stays empty); Xen clamps it to the 32-page limit");
    }

    /**
     * Parses what is written to {@code /dev/oprofile/active_domains} the way the driver's oprofilefs
     * file did: ids separated by punctuation or white space, at most {@value #MAX_OPROF_DOMAINS}.
     *
     * @throws ActiveDomainsException for junk or too many ids (the write fails with -EINVAL)
     */
    static int[] parseActiveDomains(String text) throws ActiveDomainsException {
        List<Integer> ids = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || isPunctuation(c)) {
                i++;
                continue;
            }
            if (!Character.isDigit(c) || c > '9') {
                throw new ActiveDomainsException("'" + text + "': '" + text.substring(i)
                        + "' is not a domain id; expected decimal ids separated by commas or spaces, e.g. 0,1");
            }
            int start = i;
            while (i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                i++;
            }
            if (i < n && !Character.isWhitespace(text.charAt(i)) && !isPunctuation(text.charAt(i))) {
                throw new ActiveDomainsException("'" + text + "': trailing junk after id " + text.substring(start, i)
                        + "; expected decimal ids separated by commas or spaces, e.g. 0,1");
            }
            String digits = text.substring(start, i);
            if (digits.length() > 5 || Integer.parseInt(digits) > 0xFFFF) {
                throw new ActiveDomainsException("'" + text + "': " + digits
                        + " does not fit a domid_t (16 bits); domain ids are small numbers such as 0 or 1");
            }
            ids.add(Integer.parseInt(digits));
            if (ids.size() > MAX_OPROF_DOMAINS) {
                throw new ActiveDomainsException("'" + text + "' lists more than " + MAX_OPROF_DOMAINS
                        + " domains (MAX_OPROF_DOMAINS); profile at most 25 domains actively");
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

    /** The driver refused what was written to active_domains (-EINVAL). */
    static final class ActiveDomainsException extends Exception {
        private static final long serialVersionUID = 1L;

        ActiveDomainsException(String message) {
            super(message);
        }
    }

    static String usage() {
        StringBuilder b = new StringBuilder("usage: opcontrol <action> [options], run as one domain. Actions:");
        for (Action a : Action.values()) {
            b.append(System.lineSeparator()).append(String.format("  %-15s %s", a.flag, a.help));
        }
        b.append(System.lineSeparator()).append("Options of --start-daemon:")
                .append(System.lineSeparator()).append("  --event=EVENT:count[:unitmask[:kernel[:user]]]  (repeatable; primary only)")
                .append(System.lineSeparator()).append("  --active-domains=0,1   domains to profile actively (primary only)")
                .append(System.lineSeparator()).append("  --xen=<xen-syms> --vmlinux=<vmlinux> --no-vmlinux  (images, informative)")
                .append(System.lineSeparator()).append("  --buffer-size=N        slots per vCPU buffer to ask Xen for (the driver asked for 16)");
        return b.toString();
    }
}
