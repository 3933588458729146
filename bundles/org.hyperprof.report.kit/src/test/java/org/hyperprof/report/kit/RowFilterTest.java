package org.hyperprof.report.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.report.ReportException;
import org.junit.jupiter.api.Test;

/** A row filter keeps the images and symbols its regular expressions find, minus the excluded, on its vCPUs. */
class RowFilterTest {

    private static RowFilter read(String... options) throws ReportException {
        RequestOptions request = new RequestOptions("test", RowFilter.DESCRIPTIONS, List.of(options));
        RowFilter filter = RowFilter.read(request);
        request.check();
        return filter;
    }

    @Test
    void noOptionsKeepEverything() throws ReportException {
        RowFilter filter = read();
        assertTrue(filter.all());
        assertTrue(filter.keeps("anything", "at all") && filter.keepsVcpu(7));
        assertEquals("", filter.describe());
    }

    @Test
    void patternsAreFoundInTheNameAndAnchorsMakeThemWhole() throws ReportException {
        RowFilter filter = read("image=libc", "symbol=^mem(cpy|set)$", "exclude=set");
        assertTrue(filter.keeps("/lib/x86_64/libc.so.6", "memcpy"));
        assertFalse(filter.keeps("/lib/x86_64/libc.so.6", "memset"), "excluded");
        assertFalse(filter.keeps("/lib/x86_64/libc.so.6", "memcpy_avx"), "anchored at the end");
        assertFalse(filter.keeps("vmlinux", "memcpy"), "another image");
        assertEquals("image=libc, symbol=^mem(cpy|set)$, exclude=set", filter.describe());
    }

    @Test
    void patternsKeepTheirCase() throws ReportException {
        assertFalse(read("SYMBOL=Memcpy").keeps("libc", "memcpy"));
    }

    @Test
    void aVcpuListKeepsThoseVcpus() throws ReportException {
        RowFilter filter = read("vcpu=0, 2");
        assertTrue(filter.keepsVcpu(0) && filter.keepsVcpu(2));
        assertFalse(filter.keepsVcpu(1));
        assertEquals("vcpu=0,2", filter.describe());
    }

    @Test
    void badOptionsNameTheOptionAndWhatItTakes() {
        assertEquals("option 'symbol=*alloc': '*alloc' is not a regular expression (Dangling meta character '*'"
                + " at index 0); symbol= takes a Java regular expression, e.g. symbol=^mem(cpy|set)$",
                assertThrows(ReportException.class, () -> read("symbol=*alloc")).getMessage());
        assertEquals("option 'exclude=': give a regular expression, e.g. exclude=^_?_?spin_",
                assertThrows(ReportException.class, () -> read("exclude=")).getMessage());
        assertEquals("options 'image=a', 'image=b': give image= once",
                assertThrows(ReportException.class, () -> read("image=a", "image=b")).getMessage());
        assertEquals("option 'vcpu=-1': '-1' is not a vCPU number; vcpu= takes vCPU numbers from 0,"
                + " comma-separated, e.g. vcpu=0,2",
                assertThrows(ReportException.class, () -> read("vcpu=-1")).getMessage());
    }
}
