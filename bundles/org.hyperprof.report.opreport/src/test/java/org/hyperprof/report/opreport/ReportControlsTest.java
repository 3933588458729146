package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.render;
import static org.hyperprof.report.opreport.Reports.section;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.junit.jupiter.api.Test;

/**
 * The report controls, with opreport's meanings: filters leave samples out of the rows and of the
 * totals (as --include-symbols / --exclude-symbols), threshold and top hide rows, order prints them
 * in another order, separate= keeps rows apart by application, thread and CPU (--separate).
 */
class ReportControlsTest {

    private final ThreadedSession threaded = new ThreadedSession();
    private final OpreportConsumer recording = threaded.consumer();
    private final OpreportConsumer network = new NetworkSession(1).completed();

    /** The symbol rows of the host's report, as cells, header left out. */
    private List<List<String>> symbolRows(String... options) throws Exception {
        return rows(render(recording, ReportRequest.LATEST, ThreadedSession.HOST, options), "Symbol summary");
    }

    /** The symbol table of the host's report, as cells, header first. */
    private List<List<String>> symbolTable(String... options) throws Exception {
        String report = render(recording, ReportRequest.LATEST, ThreadedSession.HOST, options);
        return Reports.table(report, "Symbol summary").stream().map(Reports::cells).toList();
    }

    /** Rows written as the report writes them: a line each, cells apart by two spaces or more. */
    private static List<List<String>> table(String rows) {
        return rows.lines().map(Reports::cells).toList();
    }

    private static List<List<String>> rows(String report, String heading) {
        List<String> lines = Reports.table(report, heading);
        return lines.subList(1, lines.size()).stream().map(Reports::cells).toList();
    }

    @Test
    void withoutControlsTheRowsAreSymbolsByMostSamples() throws Exception {
        assertEquals(table("""
                12  60.0000  libc.so.6  memcpy
                5   25.0000  vmlinux    do_syscall
                3   15.0000  nginx      ngx_process
                """), symbolRows());
    }

    @Test
    void anImageFilterKeepsTheImagesItMatchesAndPercentagesAreOverThem() throws Exception {
        assertEquals(table("""
                12  80.0000  libc.so.6  memcpy
                3   20.0000  nginx      ngx_process
                """), symbolRows("image=^(libc|nginx)"));
    }

    @Test
    void aSymbolFilterKeepsTheSymbolsItMatchesAsIncludeSymbols() throws Exception {
        String merged = section(all(network, "notruth", "symbol=^find_"), "All domains");
        assertEquals(table("""
                30  75.0000  Domain-0  xen-syms  find_domain_by_id
                10  25.0000  domU-rcv  xen-syms  find_domain_by_id
                """), rows(merged, "Symbol summary"));
        assertEquals(table("""
                30  75.0000  Domain-0  xen-syms
                10  25.0000  domU-rcv  xen-syms
                """), rows(merged, "Image summary"));
    }

    @Test
    void excludedSymbolsLeaveTheRowsAndTheTotalsAsExcludeSymbols() throws Exception {
        assertEquals(table("""
                5  62.5000  vmlinux  do_syscall
                3  37.5000  nginx    ngx_process
                """), symbolRows("exclude=^mem"));
    }

    @Test
    void theFilterIsNamedWithWhatItKeptInTheAccounting() throws Exception {
        String report = render(recording, ReportRequest.LATEST, ThreadedSession.HOST, "exclude=^mem");
        assertTrue(report.contains("\nopreport: exclude=^mem kept 8 of the 20 aggregated samples; percentages are"
                + " over what is kept\n"), report);
    }

    @Test
    void aVcpuFilterKeepsThoseVcpusSamples() throws Exception {
        assertEquals(table("""
                4  66.6667  libc.so.6  memcpy
                2  33.3333  vmlinux    do_syscall
                """), symbolRows("vcpu=0"));
    }

    @Test
    void aDomainIsTheRequestsOwnReport() throws Exception {
        String report = render(network, ReportRequest.LATEST, NetworkSession.DOMU, "notruth", "image=^xen-");
        assertEquals(table("""
                10  100.0000  xen-syms  find_domain_by_id
                """), rows(report, "Symbol summary"));
    }

    @Test
    void thresholdHidesTheRowsBelowItsPercentageAndAddsThemUp() throws Exception {
        String report = render(recording, ReportRequest.LATEST, ThreadedSession.HOST, "threshold=20");
        assertEquals(table("""
                12  60.0000  libc.so.6  memcpy
                5   25.0000  vmlinux    do_syscall
                """), rows(report, "Symbol summary"));
        assertTrue(report.contains("\n... 1 more rows not shown (below threshold=20 or past top=30): 3 samples"
                + " (15.0000 %)\n"), report);
    }

    @Test
    void orderByNameSortsBySymbolThenImage() throws Exception {
        assertEquals(table("""
                5   25.0000  vmlinux    do_syscall
                12  60.0000  libc.so.6  memcpy
                3   15.0000  nginx      ngx_process
                """), symbolRows("order=name"));
    }

    @Test
    void topChoosesTheRowsBySamplesWhateverTheOrder() throws Exception {
        assertEquals(table("""
                5   25.0000  vmlinux    do_syscall
                12  60.0000  libc.so.6  memcpy
                """), symbolRows("order=name", "top=2"));
    }

    @Test
    void separateLibKeepsAUserImagesRowsApartPerApplication() throws Exception {
        assertEquals(table("""
                6  30.0000  nginx    libc.so.6   memcpy
                6  30.0000  redis    libc.so.6   memcpy
                5  25.0000  vmlinux  do_syscall
                3  15.0000  nginx    nginx       ngx_process
                """), symbolRows("separate=lib"));
    }

    @Test
    void separateKernelKeepsKernelRowsApartPerApplicationToo() throws Exception {
        assertEquals(table("""
                6  30.0000  nginx  libc.so.6  memcpy
                6  30.0000  redis  libc.so.6  memcpy
                3  15.0000  nginx  nginx      ngx_process
                3  15.0000  redis  vmlinux    do_syscall
                2  10.0000  nginx  vmlinux    do_syscall
                """), symbolRows("separate=kernel"));
    }

    @Test
    void separateThreadKeepsEachThreadsRowsApart() throws Exception {
        assertEquals(table("""
                samples  %        thread  image name  symbol name
                6        30.0000  200     libc.so.6   memcpy
                4        20.0000  100     libc.so.6   memcpy
                3        15.0000  101     nginx       ngx_process
                3        15.0000  200     vmlinux     do_syscall
                2        10.0000  100     vmlinux     do_syscall
                2        10.0000  101     libc.so.6   memcpy
                """), symbolTable("separate=thread"));
    }

    @Test
    void separateCpuKeepsEachCpusRowsApart() throws Exception {
        // memcpy on CPU 1: nginx's thread 101 (2) and redis (6); on CPU 0: nginx's thread 100 (4)
        assertEquals(table("""
                8  66.6667  1  libc.so.6  memcpy
                4  33.3333  0  libc.so.6  memcpy
                """), symbolRows("separate=cpu", "symbol=memcpy"));
    }

    @Test
    void withoutThreadsInTheSamplesSeparateThreadIsPerVcpuAndSaysSo() throws Exception {
        String report = render(network, ReportRequest.LATEST, NetworkSession.DOMU, "notruth", "separate=thread");
        assertEquals(table("""
                25  50.0000  vcpu 0  vmlinux-xenU  tcp_v4_rcv
                15  30.0000  vcpu 0  rcv22         main
                10  20.0000  vcpu 0  xen-syms      find_domain_by_id
                """), rows(report, "Symbol summary"));
        assertTrue(report.contains("\n* thread 'vcpu N': the source recorded no thread for these samples"), report);
    }

    @Test
    void withoutCpusInTheSamplesSeparateCpuSaysTheyWereNotRecorded() throws Exception {
        String report = render(network, ReportRequest.LATEST, NetworkSession.DOMU, "notruth", "separate=cpu");
        assertEquals(List.of("25", "50.0000", "-", "vmlinux-xenU", "tcp_v4_rcv"),
                rows(report, "Symbol summary").get(0));
        assertTrue(report.contains("\n* cpu -: the source recorded no physical CPU for these samples"), report);
    }

    @Test
    void separateAllKeepsApplicationThreadAndCpuApart() throws Exception {
        List<List<String>> rows = symbolRows("separate=all");
        assertEquals(List.of("6", "30.0000", "200", "1", "redis", "libc.so.6", "memcpy"), rows.get(0));
        assertEquals(6, rows.size());
    }

    @Test
    void aBadRegularExpressionNamesTheOptionAndWhatItTakes() {
        ReportException e = assertThrows(ReportException.class, () -> symbolRows("image=lib(c"));
        assertEquals("option 'image=lib(c': 'lib(c' is not a regular expression (Unclosed group at index 5);"
                + " image= takes a Java regular expression, e.g. image=libc.*\\.so", e.getMessage());
    }

    @Test
    void badValuesNameTheOptionAndWhatItTakes() {
        assertEquals("option 'threshold=ten': threshold= takes a percentage from 0 to 100, e.g. threshold=0.5",
                assertThrows(ReportException.class, () -> symbolRows("threshold=ten")).getMessage());
        assertEquals("option 'order=size': order= takes samples (most first, the default) or name (by symbol, then"
                + " image); what rows are is separate=, not order=",
                assertThrows(ReportException.class, () -> symbolRows("order=size")).getMessage());
        assertTrue(assertThrows(ReportException.class, () -> symbolRows("separate=lib,tgid")).getMessage()
                .startsWith("option 'separate=lib,tgid': 'tgid' is not something opreport can separate by;"));
        assertEquals("option 'vcpu=one': 'one' is not a vCPU number; vcpu= takes vCPU numbers from 0,"
                + " comma-separated, e.g. vcpu=0,2",
                assertThrows(ReportException.class, () -> symbolRows("vcpu=one")).getMessage());
    }

    @Test
    void formatJsonGivesTheRowsTheTextShowsKeyedByColumnWithTheirSectionAndTheBooks() throws Exception {
        String json = render(recording, ReportRequest.LATEST, ThreadedSession.HOST, "format=json", "threshold=20");
        assertTrue(json.startsWith("{\"session\": \""), json);
        assertTrue(json.contains("\"rows\": [\n  {\"section\": \""), json);
        assertTrue(json.contains("\"summary\": \"symbol\", \"samples\": 12, \"percent\": 60.0000,"
                + " \"image_name\": \"libc.so.6\", \"symbol_name\": \"memcpy\"}"), json);
        assertTrue(json.contains("\"symbol_name\": \"do_syscall\"}"), json);
        assertTrue(!json.contains("ngx_process"), "below threshold=20, as in the text: " + json);
        assertTrue(json.endsWith(", \"books\": null}\n"), "a session still running has no books yet: " + json);
        String ended = all(network, "format=json");
        assertTrue(ended.matches("(?s).*\"books\": \\{\"taken\": \\d+, \"delivered\": \\d+, \"lost\": \\d+,"
                + " \"dropped\": \\d+, \"invalid\": \\d+, \"balanced\": true\\}\\}\n"), ended);
        assertTrue(ended.contains("{\"section\": \"all\", \"summary\": \"image\""), ended);
    }

    @Test
    void formatCsvHasAHeaderOfEveryColumnAndTheBooksInItsLastRow() throws Exception {
        List<String> lines = render(recording, ReportRequest.LATEST, ThreadedSession.HOST, "format=csv").lines()
                .toList();
        assertEquals("section,summary,samples,percent,image_name,symbol_name,books", lines.get(0));
        assertTrue(lines.contains(ThreadedSession.HOST + ",symbol,12,60.0000,libc.so.6,memcpy,"), lines.toString());
        assertEquals("session,books,,,,,still running", lines.get(lines.size() - 1));
        List<String> ended = all(network, "format=csv").lines().toList();
        assertTrue(ended.get(ended.size() - 1).matches("session,books,.*,samples taken \\d+ = delivered .*"),
                ended.toString());
    }

    @Test
    void formatIsForTheSummariesTheCallGraphStaysText() {
        ReportException e = assertThrows(ReportException.class,
                () -> render(recording, ReportRequest.LATEST, ThreadedSession.HOST, "format=csv", "details"));
        assertTrue(e.getMessage().contains("text only"), e.getMessage());
    }
}
