package org.hyperprof.report.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.report.ReportException;
import org.junit.jupiter.api.Test;

/** A report asks for the options it knows; every other option of the request is named in one error. */
class RequestOptionsTest {

    private static final List<String> DESCRIPTIONS = List.of("wide: wide rows", "top=N: N rows");

    @Test
    void flagsAndValuedOptionsCompareTrimmedInAnyCaseAndValuesAreQuotedAsGiven() throws ReportException {
        RequestOptions request = new RequestOptions("test", DESCRIPTIONS, List.of(" Wide ", "TOP= 7"));
        assertTrue(request.flag("wide"));
        assertFalse(request.flag("narrow"));
        assertEquals(List.of("TOP= 7"), request.withValue("top"));
        assertEquals("7", RequestOptions.value("TOP= 7", "top"));
        request.check();
    }

    @Test
    void everyOptionTheReportDidNotAskForIsNamedWithTheReportsList() {
        RequestOptions request = new RequestOptions("test", DESCRIPTIONS, List.of("wide", "tall", "deep"));
        request.flag("wide");
        ReportException e = assertThrows(ReportException.class, request::check);
        assertEquals("unknown test options 'deep', 'tall'; the options are: wide: wide rows; top=N: N rows",
                e.getMessage());
    }

    @Test
    void aPercentageIsFrom0To100WithDecimalsAndAnOptionalPercentSign() throws ReportException {
        assertEquals(0.5, RequestOptions.percent("threshold=0.5", "threshold", "threshold=1"));
        assertEquals(12.0, RequestOptions.percent("threshold=12%", "threshold", "threshold=1"));
        assertEquals("option 'threshold=101': threshold= takes a percentage from 0 to 100, e.g. threshold=1",
                assertThrows(ReportException.class, () -> RequestOptions.percent("threshold=101", "threshold",
                        "threshold=1")).getMessage());
    }
}
