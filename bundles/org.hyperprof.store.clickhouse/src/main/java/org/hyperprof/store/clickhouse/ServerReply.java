package org.hyperprof.store.clickhouse;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A ClickHouse server's replies read as the outside input they are: a result in TabSeparated (one line
 * per row, every line ended, columns split by tabs, backslash escapes, {@code \N} for NULL), and an error
 * text ({@code Code: 193, e.displayText() = DB::Exception: ...} from 18.16, {@code Code: 516. DB::Exception:
 * ...} from modern servers) made a {@link FleetException} of its kind. Anything else is a
 * {@link FleetException.Kind#BAD_REPLY} naming the line and column where it went wrong.
 */
final class ServerReply {
    /** Errors of the user or password: unknown user, wrong password, password required, failed, denied. */
    private static final Set<Integer> CREDENTIALS = Set.of(192, 193, 194, 497, 516);
    /**
     * Errors of a server that lacks what the statement uses: unknown function, identifier, type, engine,
     * setting or format, not implemented, a syntax it does not parse.
     */
    private static final Set<Integer> MISSING = Set.of(46, 47, 48, 50, 56, 62, 73, 115, 344);
    private static final Pattern CODE = Pattern.compile("^Code: (\\d{1,6})[.,] ?(?:e\\.displayText\\(\\) = )?(.*)",
            Pattern.DOTALL);
    /** At most this much of an error text is kept in a message: a reply may be long. */
    private static final int MOST_MESSAGE = 500;

    private ServerReply() {
    }

    /**
     * The rows of a TabSeparated result of {@code columns} columns; null for {@code \N}.
     *
     * @throws FleetException (BAD_REPLY) for a row of another width, an unknown escape, or a last line not ended
     */
    static List<String[]> rows(String body, int columns) throws FleetException {
        List<String[]> out = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        String[] row = new String[columns];
        int column = 0;
        int line = 1;
        boolean nul = false;
        int i = 0;
        int n = body.length();
        while (i < n) {
            char c = body.charAt(i++);
            if (c == '\t' || c == '\n') {
                if (column >= columns) {
                    throw bad(line, column + 1, "more than the " + columns + " columns asked");
                }
                row[column++] = nul ? null : field.toString();
                field.setLength(0);
                nul = false;
                if (c == '\n') {
                    if (column != columns) {
                        throw bad(line, column, column + " columns where " + columns + " were asked");
                    }
                    out.add(row);
                    row = new String[columns];
                    column = 0;
                    line++;
                }
            } else if (c == '\\') {
                if (i >= n) {
                    throw bad(line, column + 1, "the reply ends inside an escape");
                }
                char e = body.charAt(i++);
                switch (e) {
                    case 't' -> field.append('\t');
                    case 'n' -> field.append('\n');
                    case 'r' -> field.append('\r');
                    case '0' -> field.append('\0');
                    case 'b' -> field.append('\b');
                    case 'f' -> field.append('\f');
                    case '\\', '\'', '"', '/' -> field.append(e);
                    case 'N' -> {
                        if (field.length() != 0 || nul) {
                            throw bad(line, column + 1, "\\N inside a value");
                        }
                        nul = true;
                    }
                    default -> throw bad(line, column + 1, "an unknown escape \\" + printable(e));
                }
            } else {
                if (nul) {
                    throw bad(line, column + 1, "text after \\N");
                }
                field.append(c);
            }
        }
        if (column != 0 || field.length() != 0 || nul) {
            throw bad(line, column + 1, "the last line is not ended: the reply was cut short");
        }
        return out;
    }

    /** The one number a reply of one row and one column holds. */
    static long number(String body) throws FleetException {
        List<String[]> rows = rows(body, 1);
        if (rows.size() != 1 || rows.get(0)[0] == null) {
            throw new FleetException(FleetException.Kind.BAD_REPLY, -1, "the server answered " + rows.size()
                    + " rows where one number was asked");
        }
        return number(rows.get(0)[0], 1, 1);
    }

    /** A number of a result's cell. */
    static long number(String cell, int line, int column) throws FleetException {
        try {
            return Long.parseLong(cell);
        } catch (NumberFormatException e) {
            throw bad(line, column, "'" + shortened(cell) + "' is not a whole number");
        }
    }

    /** The error a reply of HTTP status {@code status} says, by its kind. */
    static FleetException error(int status, String body) {
        String text = body.strip();
        Matcher m = CODE.matcher(text);
        if (m.find()) {
            int code = Integer.parseInt(m.group(1));
            String what = shortened(m.group(2).replaceFirst(", e\\.what\\(\\) = DB::Exception$", ""));
            FleetException.Kind kind = CREDENTIALS.contains(code) ? FleetException.Kind.CREDENTIALS
                    : MISSING.contains(code) ? FleetException.Kind.MISSING_FEATURE : FleetException.Kind.REFUSED;
            String advice = switch (kind) {
                case CREDENTIALS -> " (check the settings user and password of pid " + FleetShipper.PID + ")";
                case MISSING_FEATURE -> " (the server lacks what the statement uses: is it older than 18.16?)";
                default -> "";
            };
            return new FleetException(kind, code, "ClickHouse refused it (code " + code + "): " + what + advice);
        }
        if (status == 401 || status == 403) {
            return new FleetException(FleetException.Kind.CREDENTIALS, -1, "ClickHouse refused the credentials"
                    + " (HTTP " + status + "; check the settings user and password of pid " + FleetShipper.PID + ")");
        }
        if (status >= 500) {
            // A proxy or a server going down answers so: try again later.
            return new FleetException(FleetException.Kind.UNREACHABLE, status, "the server failed (HTTP " + status
                    + ")" + (text.isEmpty() ? "" : ": " + shortened(text)));
        }
        return new FleetException(FleetException.Kind.BAD_REPLY, status, "the server answered HTTP " + status
                + (text.isEmpty() ? " with no text" : ": " + shortened(text)) + ": is the endpoint ClickHouse's HTTP"
                + " interface?");
    }

    private static FleetException bad(int line, int column, String what) {
        return new FleetException(FleetException.Kind.BAD_REPLY, -1, "the server's reply does not parse at line " + line
                + ", column " + column + ": " + what);
    }

    private static String printable(char c) {
        return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
    }

    private static String shortened(String s) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < s.length() && b.length() < MOST_MESSAGE; k++) {
            char c = s.charAt(k);
            b.append(c < 0x20 ? ' ' : c);
        }
        return s.length() > MOST_MESSAGE ? b + "..." : b.toString();
    }
}
