package org.hyperprof.command.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class ArgsTest {
    private static final List<Option> OPTIONS = List.of(Option.value("--ms", "N", "how long"),
            Option.value("--event", "SPEC", "what to count").repeatable(), Option.flag("--no-report", "no report"),
            Option.choice("--format", List.of("text", "json"), "how"));

    private static Args parse(String... argv) throws UsageException {
        return Args.parse(argv, OPTIONS);
    }

    @Test
    void optionValueMayFollowAsNextWordOrAfterEquals() throws UsageException {
        assertEquals("500", parse("--ms", "500").value("--ms"));
        assertEquals("500", parse("--ms=500").value("--ms"));
    }

    @Test
    void anOptionThatIsNotRepeatableIsRefusedTheSecondTime() {
        UsageException e = assertThrows(UsageException.class, () -> parse("--ms", "5", "--ms=6"));
        assertEquals("--ms is given twice (5 and 6); give it once", e.getMessage());
    }

    @Test
    void aChoiceTakesOnlyItsWords() throws UsageException {
        assertEquals("json", parse("--format", " json").value("--format"));
        UsageException e = assertThrows(UsageException.class, () -> parse("--format=xml"));
        assertEquals("--format takes text or json, not 'xml'", e.getMessage());
    }

    @Test
    void theWordsAfterADoubleDashAreKeptApartForACommandThatRunsAnother() throws UsageException {
        Args a = parse("data", "--ms", "1", "--", "sleep", "--ms");
        assertEquals(List.of("data", "sleep", "--ms"), a.positional());
        assertEquals(List.of("sleep", "--ms"), a.afterOptions());
        assertEquals(List.of(), parse("data").afterOptions());
    }

    @Test
    void repeatedOptionKeepsEveryValueInOrderAndValueIsTheLast() throws UsageException {
        Args a = parse("--event", "A:1", "--event=B:2");
        assertEquals(List.of("A:1", "B:2"), a.values("--event"));
        assertEquals("B:2", a.value("--event"));
    }

    @Test
    void absentOptionIsNullAndHasNoValues() throws UsageException {
        Args a = parse();
        assertNull(a.value("--ms"));
        assertEquals(List.of(), a.values("--event"));
        assertFalse(a.flag("--no-report"));
    }

    @Test
    void flagsAndPositionalWordsAreSeparated() throws UsageException {
        Args a = parse("symbols", "--no-report", "top=10");
        assertTrue(a.flag("--no-report"));
        assertEquals(List.of("symbols", "top=10"), a.positional());
    }

    @Test
    void doubleDashEndsOptions() throws UsageException {
        assertEquals(List.of("--ms"), parse("--", "--ms").positional());
    }

    @Test
    void singleDashWordsStayPositionalSoNegativeNumbersReachTheNumberCheck() throws UsageException {
        assertEquals(List.of("-5"), parse("-5").positional());
    }

    @Test
    void sessionIdsAreWholeNumbersFromOne() throws UsageException {
        assertEquals(List.of(42L, 0x10L), Args.sessionIds(List.of("42", "0x10")));
        assertEquals("a session id must be at least 1, got 0",
                assertThrows(UsageException.class, () -> Args.sessionId("0")).getMessage());
        assertEquals("expected a session id as a number, got 'x'",
                assertThrows(UsageException.class, () -> Args.sessionIds(List.of("1", "x"))).getMessage());
    }

    @Test
    void unknownOptionNamesTheKnownOnes() {
        UsageException e = assertThrows(UsageException.class, () -> parse("--msec", "5"));
        assertEquals("unknown option '--msec'; options are --event, --format, --ms, --no-report", e.getMessage());
    }

    @Test
    void unknownOptionOfACommandWithoutOptionsSaysSo() {
        UsageException e = assertThrows(UsageException.class, () -> Args.parse(new String[] {"--x"}, List.of()));
        assertEquals("unknown option '--x'; this command takes no options", e.getMessage());
    }

    @Test
    void optionWithoutItsValueIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> parse("--ms"));
        assertEquals("option --ms needs a value (--ms N)", e.getMessage());
    }

    @Test
    void flagGivenAValueIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> parse("--no-report=yes"));
        assertEquals("option --no-report takes no value, got '--no-report=yes'", e.getMessage());
    }

    @Test
    void tooManyPositionalWordsAreNamed() {
        UsageException e = assertThrows(UsageException.class, () -> parse("a", "b", "c").atMostPositional(1, "one name"));
        assertEquals("too many arguments: b c (expected one name)", e.getMessage());
    }

    @Test
    void tooFewOrAnotherNumberOfWordsIsTheCommandsOwnMessage() throws UsageException {
        assertEquals(List.of("a", "b"),
                parse("a", "b").atLeastPositional(2, "x").exactlyPositional(2, "y").positional());
        assertEquals("give two", assertThrows(UsageException.class,
                () -> parse("a").atLeastPositional(2, "give two")).getMessage());
        assertEquals("give one", assertThrows(UsageException.class,
                () -> parse("a", "b").exactlyPositional(1, "give one")).getMessage());
    }

    @Test
    void numbersAreDecimalOrHex() throws UsageException {
        assertEquals(121, Args.number("121", "n", 0, 1000));
        assertEquals(0x79, Args.number("0x79", "n", 0, 1000));
        assertEquals(0x79, Args.number("0X79", "n", 0, 1000));
    }

    @Test
    void nonNumberSaysWhatWasExpected() {
        UsageException e = assertThrows(UsageException.class, () -> Args.number("ten", "the count", 0, 10));
        assertEquals("expected the count as a number, got 'ten'", e.getMessage());
    }

    @Test
    void numberOutsideItsRangeGivesTheRange() {
        assertEquals("the count must be from 1 to 10, got 11",
                assertThrows(UsageException.class, () -> Args.number("11", "the count", 1, 10)).getMessage());
        assertEquals("the count must be at least 1, got 0",
                assertThrows(UsageException.class, () -> Args.number("0", "the count", 1, Long.MAX_VALUE)).getMessage());
        assertEquals("the count must be 0 or more, got -3",
                assertThrows(UsageException.class, () -> Args.number("-3", "the count", 0, Long.MAX_VALUE)).getMessage());
    }

    @Test
    void domainIdIsSixteenBits() throws UsageException {
        assertEquals(65535, Args.domid("65535", "the domain"));
        assertThrows(UsageException.class, () -> Args.domid("65536", "the domain"));
    }

    @Test
    void domainListTakesCommasOrSpaces() throws UsageException {
        assertEquals(List.of(0, 1, 5), Args.domainList("0,1 5", "--domains"));
    }

    @Test
    void domainListWithAnEmptyEntryIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> Args.domainList("0,,1", "--domains"));
        assertEquals("--domains '0,,1' has an empty entry; expected domain ids like 0,1", e.getMessage());
    }

    @Test
    void nameListSplitsAtCommasAndDropsBlanksAroundThem() throws UsageException {
        assertEquals(List.of("vmlinux-a", "vmlinux b"), Args.nameList(" vmlinux-a , vmlinux b ", "--images", "x,y"));
    }

    @Test
    void nameListWithAnEmptyEntryShowsTheExample() {
        assertEquals("--images 'a,' has an empty entry; expected names separated by commas, e.g. x,y",
                assertThrows(UsageException.class, () -> Args.nameList("a,", "--images", "x,y")).getMessage());
    }
}
