package org.hyperprof.report.kit;

/** Text inside an XML or SVG file Hyperprof writes (the flame graph, the study's chart). */
public final class XmlText {

    private XmlText() {
    }

    /**
     * Escapes text for XML content and attribute values; characters XML 1.0 cannot carry (control
     * characters, lone surrogates, U+FFFE/U+FFFF) become U+FFFD, so any symbol or label gives a
     * well-formed file.
     */
    public static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&apos;");
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' || Character.isSurrogate(c)
                            || c == '\uFFFE' || c == '\uFFFF') {
                        b.append('\uFFFD');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }
}
