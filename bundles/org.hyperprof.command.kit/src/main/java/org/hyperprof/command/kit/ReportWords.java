package org.hyperprof.command.kit;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The report's own words after a command's options ({@code image=^vmlinux threshold=1}), as every
 * command that prints a report takes them: checked against what the renderer lists before any work,
 * so a typo does not cost a run or an import.
 */
public final class ReportWords {
    private ReportWords() {
    }

    /**
     * @param renderer  the renderer's name, for the message
     * @param described its options as it lists them, e.g. {@code "top=N: at most N rows"}
     * @throws UsageException for a word whose key ({@code top} of {@code top=5}) the renderer does not list
     */
    public static void check(String renderer, List<String> described, Set<String> words) throws UsageException {
        Set<String> keys = new TreeSet<>();
        for (String d : described) {
            keys.add(key(optionName(d)));
        }
        for (String w : words) {
            if (!keys.contains(key(w))) {
                throw new UsageException("'" + w + "' is not an option of the " + renderer + " renderer; its options are "
                        + String.join(", ", keys) + " (hp:reports describes them)");
            }
        }
    }

    /** {@code top=N} of {@code "top=N: at most N rows"}: an option's name, before its description. */
    public static String optionName(String described) {
        String t = described.strip();
        int end = 0;
        while (end < t.length() && t.charAt(end) != ':' && !Character.isWhitespace(t.charAt(end))) {
            end++;
        }
        return t.substring(0, end);
    }

    /** {@code top} of {@code top=5} or {@code top=N}. */
    private static String key(String word) {
        int eq = word.indexOf('=');
        return eq < 0 ? word : word.substring(0, eq);
    }
}
