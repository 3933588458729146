package org.hyperprof.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Names that are not valid come back unchanged, and no input makes the demangler throw, exhaust its
 * stack or run unbounded. The timeout only guards against a hang; it measures nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MalformedNameTest {
    private static final List<String> SEEDS = List.of(
            "_ZN16SortedLinkedListI10MallocSiteXadL_Z19compare_malloc_siteRKS0_S2_EELN11ResourceObj15allocation_typeE2EL8MEMFLAGS11ELN17AllocFailStrategy13AllocFailEnumE1EE3addEP14LinkedListNodeIS0_E",
            "_ZNKSt19__codecvt_utf8_baseIDiE5do_inER11__mbstate_tPKcS4_RS4_PDiS6_RS6_",
            "_ZZ1fvENKUliE1_clEi",
            "_ZN1AcvT_IiEEv",
            "_Z1fIiEPFvvEv.constprop.0.isra.0",
            "_ZTv0_n24_N1A1fEv",
            "_Z1fPM1AKFivE",
            "_ZN4core3ptr79drop_in_place$LT$alloc..boxed..Box$LT$dyn$u20$prog..outer..inner..Shape$GT$$GT$17h30d4ebba141c4fa6E",
            "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2N_4SendEL_EEB1T_",
            "_RINvC1a1fFKCEuE");
    private static final String ALPHABET = "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.$";

    private final Demangler demangler = new Demangler();

    @Test
    void everyTruncationOfANameDemanglesAsCppFiltDoes() {
        List<String> truncated = new ArrayList<>();
        for (String seed : SEEDS) {
            for (int end = 0; end < seed.length(); end++) {
                truncated.add(seed.substring(0, end));
            }
        }
        truncated.removeIf(String::isEmpty);
        List<String> expected = Tools.run(List.of("c++filt"), truncated);
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < truncated.size(); i++) {
            String full = demangler.full(truncated.get(i));
            demangler.brief(truncated.get(i));
            if (!full.equals(expected.get(i))) {
                mismatches.add(truncated.get(i) + " -> " + full + ", c++filt: " + expected.get(i));
            }
        }
        assertEquals(List.of(), mismatches);
        assertEquals("_ZN1A", demangler.full("_ZN1A"));
        assertEquals("_Z1fQ", demangler.full("_Z1fQ"));
    }

    @Test
    void deepNestingIsRefusedWithoutAStackOverflow() {
        String pointers = "_Z1f" + "P".repeat(100_000) + "i";
        assertEquals(pointers, demangler.full(pointers));
        String templates = "_Z1f" + "I1A".repeat(50_000) + "i" + "E".repeat(50_000) + "v";
        assertEquals(templates, demangler.full(templates));
        String locals = "_Z" + "Z".repeat(50_000) + "1fv" + "E1x".repeat(50_000);
        assertEquals(locals, demangler.brief(locals));
        String rustTuples = "_RINvC1a1f" + "T".repeat(50_000) + "u" + "E".repeat(50_000) + "E";
        assertEquals(rustTuples, demangler.full(rustTuples));
        String rustBackrefs = "_RNvC1a" + "NvB0_1b".repeat(20_000);
        demangler.full(rustBackrefs);
    }

    @Test
    void substitutionsThatDoubleAtEachStepStopAtTheLengthBound() {
        // Each template argument list repeats the previous type twice: the text doubles per step.
        StringBuilder name = new StringBuilder("_Z1fI1A");
        for (int i = 0; i < 40; i++) {
            name.append("I").append(i == 0 ? "S_" : "S" + Integer.toString(2 * i - 1, 36).toUpperCase() + "_")
                    .append(i == 0 ? "S_" : "S" + Integer.toString(2 * i - 1, 36).toUpperCase() + "_").append("E");
        }
        name.append("EvT_");
        String mangled = name.toString();
        String full = demangler.full(mangled);
        assertTrue(full.equals(mangled) || full.length() <= 1 << 16, "bounded output: " + full.length());
    }

    @Test
    void mutatedNamesNeverThrow() {
        for (long seed = 1; seed <= 8; seed++) {
            Random random = new Random(seed);
            for (int i = 0; i < 25_000; i++) {
                String base = SEEDS.get(random.nextInt(SEEDS.size()));
                String mutated = mutate(base, random);
                String full = demangler.full(mutated);
                String brief = demangler.brief(mutated);
                assertTrue(full != null && brief != null, mutated);
            }
        }
    }

    private static String mutate(String name, Random random) {
        StringBuilder b = new StringBuilder(name);
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits && b.length() > 2; e++) {
            int at = 2 + random.nextInt(b.length() - 2);
            char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
            switch (random.nextInt(4)) {
                case 0 -> b.setCharAt(at, c);
                case 1 -> b.insert(at, c);
                case 2 -> b.deleteCharAt(at);
                default -> b.insert(at, b.substring(at, Math.min(b.length(), at + 1 + random.nextInt(8))));
            }
        }
        return b.toString();
    }
}
