package org.hyperprof.web.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The one parser of the view's parameters: typed values in their bounds, or a 400 that says what was wrong. */
class ParamsTest {

    @Test
    void valuesArePercentDecodedUtf8WithPlusAsSpace() throws BadParameter {
        Params p = Params.parse("q=caf%C3%A9+au%20lait&id=8351246094337919270");
        assertEquals("café au lait", p.text("q", null));
        assertEquals(8351246094337919270L, p.id("id"));
    }

    @Test
    void anIdThatIsNotAWholeNumberIsRefusedNamingTheParameter() throws BadParameter {
        BadParameter e = assertThrows(BadParameter.class, () -> Params.parse("id=12a").id("id"));
        assertEquals("parameter 'id' is '12a'; it takes a whole number from 0 to 9223372036854775807", e.getMessage());
        BadParameter missing = assertThrows(BadParameter.class, () -> Params.parse("").id("id"));
        assertTrue(missing.getMessage().startsWith("parameter 'id' is missing"), missing.getMessage());
        assertThrows(BadParameter.class, () -> Params.parse("id=99999999999999999999").id("id"));
        assertThrows(BadParameter.class, () -> Params.parse("id=-1").id("id"));
    }

    @Test
    void numbersOutsideTheirBoundsAreRefusedAndAbsentOnesTakeTheDefault() throws BadParameter {
        assertEquals(200, Params.parse("").integer("limit", 1, 1000, 200));
        BadParameter e = assertThrows(BadParameter.class, () -> Params.parse("limit=5000").integer("limit", 1, 1000, 200));
        assertEquals("parameter 'limit' is 5000; it takes a whole number from 1 to 1000", e.getMessage());
    }

    @Test
    void aParameterGivenTwiceIsRefused() throws BadParameter {
        Params p = Params.parse("id=1&id=2");
        assertThrows(BadParameter.class, () -> p.id("id"));
    }

    @Test
    void brokenEscapesBadNamesAndControlCharactersAreRefused() throws BadParameter {
        assertThrows(BadParameter.class, () -> Params.parse("q=%zz"));
        assertThrows(BadParameter.class, () -> Params.parse("q=%e2%82"), "not UTF-8");
        assertThrows(BadParameter.class, () -> Params.parse("1bad=x"));
        assertThrows(BadParameter.class, () -> Params.parse("q=a\u00e9"), "raw non-ASCII must be encoded");
        BadParameter control = assertThrows(BadParameter.class, () -> Params.parse("q=a%0Ab").text("q", null));
        assertTrue(control.getMessage().contains("control character"), control.getMessage());
    }

    @Test
    void choicesComeFromTheirSetAndPatternsMustCompile() throws BadParameter {
        assertEquals("svg", Params.parse("format=svg").choice("format", List.of("pprof", "svg"), null));
        BadParameter e = assertThrows(BadParameter.class,
                () -> Params.parse("format=..%2Fetc").choice("format", List.of("pprof", "svg"), null));
        assertEquals("parameter 'format' is '../etc'; it takes one of [pprof, svg]", e.getMessage());
        assertThrows(BadParameter.class, () -> Params.parse("q=(a").pattern("q"));
        assertNull(Params.parse("q=").pattern("q"));
    }

    @Test
    void tooLongOrTooManyIsRefused() {
        assertThrows(BadParameter.class, () -> Params.parse("q=" + "a".repeat(Params.MAX_QUERY)));
        assertThrows(BadParameter.class, () -> Params.parse("a=1&".repeat(Params.MAX_PARAMETERS + 1)));
    }

    @Test
    void flagsAreOneZeroTrueOrFalse() throws BadParameter {
        assertTrue(Params.parse("all=1").flag("all", false));
        assertFalse(Params.parse("all=false").flag("all", true));
        assertThrows(BadParameter.class, () -> Params.parse("all=yes").flag("all", false));
    }
}
