package org.hyperprof.report.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class XmlTextTest {

    @Test
    void theFiveMarkupCharactersBecomeEntities() {
        assertEquals("a&lt;b&gt;c&amp;d&quot;e&apos;f", XmlText.escape("a<b>c&d\"e'f"));
    }

    @Test
    void whatXmlCannotCarryBecomesTheReplacementCharacter() {
        assertEquals("\ufffd\ufffd\ufffd\ufffd", XmlText.escape("\u0001\udc00\uffff\ud83d"));
    }

    @Test
    void surrogatePairsTabsAndNewlinesPassUnchanged() {
        assertEquals("\ud83d\udd25\t\n\r", XmlText.escape("\ud83d\udd25\t\n\r"));
    }
}
