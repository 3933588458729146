package org.hyperprof.api.pmu;

/**
 * What a user asks to count, in OProfile's syntax {@code EVENT:count[:unitmask[:kernel[:user]]]}
 * (as given to {@code opcontrol --event}). Not yet checked against a model; see
 * {@link PmuModel#allocate(java.util.List)}.
 *
 * @param eventName the event's name
 * @param count     the sampling period
 * @param unitMask  the unit mask, or {@code -1} for the event's default
 * @param kernel    count in kernel (ring 0) mode
 * @param user      count in user (rings 1-3) mode
 */
public record EventSpec(String eventName, long count, long unitMask, boolean kernel, boolean user) {

    /** Parses {@code EVENT:count[:unitmask[:kernel[:user]]]}; kernel and user default to 1. */
    public static EventSpec parse(String text) throws EventSpecException {
        if (text == null || text.isBlank()) {
            throw new EventSpecException("empty event specification; expected EVENT:count[:unitmask[:kernel[:user]]],"
                    + " e.g. CPU_CLK_UNHALTED:100000:0:1:1");
        }
        String[] f = text.trim().split(":", -1);
        if (f.length < 2 || f.length > 5) {
            throw new EventSpecException("event specification '" + text + "' has " + f.length
                    + " fields; expected EVENT:count[:unitmask[:kernel[:user]]], e.g. CPU_CLK_UNHALTED:100000:0:1:1");
        }
        String name = f[0].trim();
        if (name.isEmpty()) {
            throw new EventSpecException("event specification '" + text + "' has no event name");
        }
        long count = number(text, "count", f[1]);
        if (count <= 0) {
            throw new EventSpecException("count " + f[1] + " in '" + text + "' must be a positive sampling period");
        }
        long mask = f.length > 2 && !f[2].isBlank() ? number(text, "unit mask", f[2]) : -1;
        boolean kernel = f.length <= 3 || flag(text, "kernel", f[3]);
        boolean user = f.length <= 4 || flag(text, "user", f[4]);
        if (!kernel && !user) {
            throw new EventSpecException("'" + text + "' counts in neither kernel nor user mode; set kernel or user to 1");
        }
        return new EventSpec(name, count, mask, kernel, user);
    }

    private static long number(String text, String what, String field) throws EventSpecException {
        String s = field.trim();
        try {
            return s.startsWith("0x") || s.startsWith("0X") ? Long.parseLong(s.substring(2), 16) : Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new EventSpecException(what + " '" + field + "' in '" + text + "' is not a number (decimal or 0x hex)");
        }
    }

    private static boolean flag(String text, String what, String field) throws EventSpecException {
        return switch (field.trim()) {
            case "1", "" -> true;
            case "0" -> false;
            default -> throw new EventSpecException(what + " flag '" + field + "' in '" + text + "' must be 0 or 1");
        };
    }

    @Override
    public String toString() {
        return eventName + ":" + count + ":" + (unitMask < 0 ? "" : "0x" + Long.toHexString(unitMask)) + ":"
                + (kernel ? 1 : 0) + ":" + (user ? 1 : 0);
    }
}
