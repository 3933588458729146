package org.hyperprof.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One name for each grammar production the demangler reads, with what binutils' c++filt 2.40 prints
 * for it ({@code c++filt} and {@code c++filt -p}, recorded once); Rust legacy names without the hash.
 */
class GrammarTest {
    private final Demangler demangler = new Demangler();

    static Stream<Arguments> names() {
        return Stream.of(
            // nested names, this-qualifiers and ref-qualifiers
            row("_ZN1A1B1fEv", "A::B::f()", "A::B::f"),
            row("_ZNK1A1fEv", "A::f() const", "A::f"),
            row("_ZNKR1A1fEv", "A::f() const &", "A::f"),
            row("_ZNO1A1fEv", "A::f() &&", "A::f"),
            // templates: return type, template parameters, substitutions
            row("_Z1fIiEvT_", "void f<int>(int)", "f<int>"),
            row("_ZSt4swapIiEvRT_S1_", "void std::swap<int>(int&, int&)", "std::swap<int>"),
            row("_Z1fIiEPFvvEv", "void (*f<int>())()", "f<int>"),
            // std:: abbreviations, constructors and destructors of them
            row("_ZNSsC1Ev", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string()", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string"),
            row("_ZNSs4sizeEv", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::size()", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::size"),
            row("_ZNSaIcED2Ev", "std::allocator<char>::~allocator()", "std::allocator<char>::~allocator"),
            row("_Z1fSo", "f(std::basic_ostream<char, std::char_traits<char> >)", "f"),
            row("_Z1fSt6vectorIiSaIiEE", "f(std::vector<int, std::allocator<int> >)", "f"),
            row("_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)", "std::vector<int, std::allocator<int> >::push_back"),
            // ABI tags
            row("_ZN5Agent4nameB5cxx11Ev", "Agent::name[abi:cxx11]()", "Agent::name[abi:cxx11]"),
            // arrays, function and member pointers, qualifiers
            row("_Z1fPA3_i", "f(int (*) [3])", "f"),
            row("_Z1fRA3_i", "f(int (&) [3])", "f"),
            row("_Z18get_header_versionILi256EEvRAT__c", "void get_header_version<256>(char (&) [256])", "get_header_version<256>"),
            row("_Z1fPFviE", "f(void (*)(int))", "f"),
            row("_Z1fPM1AFivE", "f(int (A::**)())", "f"),
            row("_Z1fM1Ai", "f(int A::*)", "f"),
            row("_Z1fM1AKFivE", "f(int (A::*)() const)", "f"),
            row("_Z1fPKc", "f(char const*)", "f"),
            row("_Z1fKPc", "f(char* const)", "f"),
            row("_Z1fPVKi", "f(int const volatile*)", "f"),
            // references, varargs, builtins
            row("_Z1fOi", "f(int&&)", "f"),
            row("_Z1fz", "f(...)", "f"),
            row("_Z1fiz", "f(int, ...)", "f"),
            row("_Z1fDn", "f(decltype(nullptr))", "f"),
            row("_Z1fDi", "f(char32_t)", "f"),
            // argument packs and literals
            row("_Z1fIJidEEvDpT_", "void f<int, double>(int, double)", "f<int, double>"),
            row("_Z1fILi5ELb1ELj3EEvv", "void f<5, true, 3u>()", "f<5, true, 3u>"),
            row("_Z1fILb0EEvv", "void f<false>()", "f<false>"),
            row("_Z1fILin3EEvv", "void f<-3>()", "f<-3>"),
            row("_Z1fILc97EEvv", "void f<(char)97>()", "f<(char)97>"),
            row("_Z1fILl3EEvv", "void f<3l>()", "f<3l>"),
            row("_Z1fILm3EEvv", "void f<3ul>()", "f<3ul>"),
            row("_Z1fIL_Z1gvEEvv", "void f<g()>()", "f<g()>"),
            // expressions: address of a member function
            row("_ZN14JfrVMOperationI18JfrRecorderServiceXadL_ZNS0_15safepoint_clearEvEEE4doitEv", "JfrVMOperation<JfrRecorderService, &JfrRecorderService::safepoint_clear>::doit()", "JfrVMOperation<JfrRecorderService, &JfrRecorderService::safepoint_clear>::doit"),
            // operator names, conversions, constructors, destructors
            row("_ZN1AplERKS_", "A::operator+(A const&)", "A::operator+"),
            row("_ZN1AltIiEEvv", "void A::operator< <int>()", "A::operator< <int>"),
            row("_ZN1AcviEv", "A::operator int()", "A::operator int"),
            row("_ZN1AcvT_IiEEv", "A::operator int<int>()", "A::operator int<int>"),
            row("_ZNK1AclEv", "A::operator()() const", "A::operator()"),
            row("_ZN1AixEi", "A::operator[](int)", "A::operator[]"),
            row("_ZN1AnwEm", "A::operator new(unsigned long)", "A::operator new"),
            row("_ZdlPv", "operator delete(void*)", "operator delete"),
            row("_Znwm", "operator new(unsigned long)", "operator new"),
            row("_ZN1AdaEPv", "A::operator delete[](void*)", "A::operator delete[]"),
            row("_ZN1AaSEOS_", "A::operator=(A&&)", "A::operator="),
            row("_ZN1AD0Ev", "A::~A()", "A::~A"),
            row("_ZN1AC2ERKS_", "A::A(A const&)", "A::A"),
            row("_ZN1BIiEC1Ev", "B<int>::B()", "B<int>::B"),
            // internal linkage, anonymous namespace, local names, lambdas, unnamed types
            row("_ZL3foov", "foo()", "foo"),
            row("_ZN12_GLOBAL__N_11fEv", "(anonymous namespace)::f()", "(anonymous namespace)::f"),
            row("_ZZ1fvE1x", "f()::x", "f()::x"),
            row("_ZZ1fvE1x_0", "f()::x", "f()::x"),
            row("_ZZ1fvENKUlvE_clEv", "f()::{lambda()#1}::operator()() const", "f()::{lambda()#1}::operator()"),
            row("_ZZ1fvENKUlvE0_clEv", "f()::{lambda()#2}::operator()() const", "f()::{lambda()#2}::operator()"),
            row("_ZZ1fvENKUliE1_clEi", "f()::{lambda(int)#3}::operator()(int) const", "f()::{lambda(int)#3}::operator()"),
            row("_ZZN1A1fEvENUt_1gEv", "A::f()::{unnamed type#1}::g()", "A::f()::{unnamed type#1}::g"),
            row("_ZZ1fvEN1B1gEv", "f()::B::g()", "f()::B::g"),
            // special names: thunks, TLS, vtables
            row("_ZThn8_N1A1fEv", "non-virtual thunk to A::f()", "non-virtual thunk to A::f()"),
            row("_ZTv0_n24_N1A1fEv", "virtual thunk to A::f()", "virtual thunk to A::f()"),
            row("_ZTW1x", "TLS wrapper function for x", "TLS wrapper function for x"),
            row("_ZTH1x", "TLS init function for x", "TLS init function for x"),
            row("_ZTV1A", "vtable for A", "vtable for A"),
            row("_ZTI1A", "typeinfo for A", "typeinfo for A"),
            // clones
            row("_ZN1A1fEv.cold", "A::f() [clone .cold]", "A::f"),
            row("_ZN1A1fEv.constprop.0.isra.0", "A::f() [clone .constprop.0] [clone .isra.0]", "A::f"),
            row("_Z1fv.part.0", "f() [clone .part.0]", "f"),
            row("_ZN1A1fEv.cold.12", "A::f() [clone .cold.12]", "A::f"),
            // global constructors
            row("_GLOBAL__sub_I__ZN1A1fEv", "_GLOBAL__sub_I__ZN1A1fEv", "_GLOBAL__sub_I__ZN1A1fEv"),
            row("_GLOBAL__I__Z1fv", "global constructors keyed to f()", "global constructors keyed to f()"),
            // pack expansions, local names (no return type for the function they are in), in template arguments
            row("_ZN2kj10StringTree6concatIJNS_10FixedArrayIcLm1EEES0_S3_EEES0_DpOT_", "kj::StringTree kj::StringTree::concat<kj::FixedArray<char, 1ul>, kj::StringTree, kj::FixedArray<char, 1ul> >(kj::FixedArray<char, 1ul>&&, kj::StringTree&&, kj::FixedArray<char, 1ul>&&)", "kj::StringTree::concat<kj::FixedArray<char, 1ul>, kj::StringTree, kj::FixedArray<char, 1ul> >"),
            row("_ZZ1fIiEvvE1x", "f<int>()::x", "f<int>()::x"),
            row("_Z1gIZ1fIiEvvEUlvE_EvT_", "void g<f<int>()::{lambda()#1}>(f<int>()::{lambda()#1})", "g<f<int>()::{lambda()#1}>"),
            row("_ZZZ1fIiEvvENKUlvE_clEvE1y", "f<int>()::{lambda()#1}::operator()() const::y", "f<int>()::{lambda()#1}::operator()() const::y"),
            row("_ZNK1A1fE", "A::f const", "A::f"),
            row("_ZN19ConcurrentHashTableI28G1CodeRootSetHashTableConfigL6MemTag5EE25do_bulk_delete_locked_forIZN22G1CodeRootSetHashTable11bulk_removeEvEUlPP7nmethodE_ZNS4_5cleanIS8_EEvRT_EUlS7_E_EEvP6ThreadmmSB_RT0_b.isra.0", "void ConcurrentHashTable<G1CodeRootSetHashTableConfig, (MemTag)5>::do_bulk_delete_locked_for<G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}, G1CodeRootSetHashTable::clean<G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}>(G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}&)::{lambda(nmethod**)#1}>(Thread*, unsigned long, unsigned long, G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}&, G1CodeRootSetHashTable::clean<G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}>(G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}&)::{lambda(nmethod**)#1}&, bool) [clone .isra.0]", "ConcurrentHashTable<G1CodeRootSetHashTableConfig, (MemTag)5>::do_bulk_delete_locked_for<G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}, G1CodeRootSetHashTable::clean<G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}>(G1CodeRootSetHashTable::bulk_remove()::{lambda(nmethod**)#1}&)::{lambda(nmethod**)#1}>"),
            // reference collapsing through template arguments and pack elements
            row("_ZN4llvm12is_containedIRA41_KjjEEbOT_RKT0_", "bool llvm::is_contained<unsigned int const (&) [41], unsigned int>(unsigned int const (&) [41], unsigned int const&)", "llvm::is_contained<unsigned int const (&) [41], unsigned int>"),
            row("_ZN2kj1_5Debug5FaultC1IiJRjEEEPKciT_S6_S6_DpOT0_", "kj::_::Debug::Fault::Fault<int, unsigned int&>(char const*, int, int, char const*, char const*, unsigned int&)", "kj::_::Debug::Fault::Fault<int, unsigned int&>"),
            // an empty pack last: c++filt closes with >> then
            row("_ZTIN5clang4ento7CheckerINS0_5check7PreStmtINS_4StmtEEEJEEE", "typeinfo for clang::ento::Checker<clang::ento::check::PreStmt<clang::Stmt>>", "typeinfo for clang::ento::Checker<clang::ento::check::PreStmt<clang::Stmt>>"),
            // dependent names in expressions (sr), negation, empty pack expansions among parameters
            row("_ZN4llvm4yaml7yamlizeINS0_5Hex32EEENSt9enable_ifIXsr16has_ScalarTraitsIT_EE5valueEvE4typeERNS0_2IOERS4_bRNS0_12EmptyContextE", "std::enable_if<has_ScalarTraits<llvm::yaml::Hex32>::value, void>::type llvm::yaml::yamlize<llvm::yaml::Hex32>(llvm::yaml::IO&, llvm::yaml::Hex32&, bool, llvm::yaml::EmptyContext&)", "llvm::yaml::yamlize<llvm::yaml::Hex32>"),
            row("_ZN4Poco6formatIiJEEENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEPKcT_DpT0_", "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > Poco::format<int>(char const*, int)", "Poco::format<int>"),
            row("_ZSt11make_sharedIN5clang4ento24PathDiagnosticEventPieceEJRNS1_22PathDiagnosticLocationERA39_KcEESt10shared_ptrINSt9enable_ifIXntsr8is_arrayIT_EE5valueESA_E4typeEEDpOT0_", "std::shared_ptr<std::enable_if<!is_array<clang::ento::PathDiagnosticEventPiece>::value, clang::ento::PathDiagnosticEventPiece>::type> std::make_shared<clang::ento::PathDiagnosticEventPiece, clang::ento::PathDiagnosticLocation&, char const (&) [39]>(clang::ento::PathDiagnosticLocation&, char const (&) [39])", "std::make_shared<clang::ento::PathDiagnosticEventPiece, clang::ento::PathDiagnosticLocation&, char const (&) [39]>"),
            // Rust legacy: the hash is dropped
            row("_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE", "core::fmt::Write::write_fmt", "core::fmt::Write::write_fmt"),
            row("_ZN4prog4main17hcce186249aee5b82E", "prog::main", "prog::main"),
            row("_ZN4core3ptr79drop_in_place$LT$alloc..boxed..Box$LT$dyn$u20$prog..outer..inner..Shape$GT$$GT$17h30d4ebba141c4fa6E", "core::ptr::drop_in_place<alloc::boxed::Box<dyn prog::outer::inner::Shape>>", "core::ptr::drop_in_place<alloc::boxed::Box<dyn prog::outer::inner::Shape>>"),
            // Rust v0: crates, closures, trait impls, inherent impls, consts, binders, ABIs
            row("_RNvCs56HGsqMBDvY_4prog4main", "prog[3b7f65fa48c62bf4]::main", "prog[3b7f65fa48c62bf4]::main"),
            row("_RINvCs56HGsqMBDvY_4prog5applyNCNvB2_4main0EB2_", "prog[3b7f65fa48c62bf4]::apply::<prog[3b7f65fa48c62bf4]::main::{closure#0}>", "prog[3b7f65fa48c62bf4]::apply::<prog[3b7f65fa48c62bf4]::main::{closure#0}>"),
            row("_RNvXs_NtNtCs56HGsqMBDvY_4prog5outer5innerNtB4_6SquareNtB4_5Shape4area", "<prog[3b7f65fa48c62bf4]::outer::inner::Square as prog[3b7f65fa48c62bf4]::outer::inner::Shape>::area", "<prog[3b7f65fa48c62bf4]::outer::inner::Square as prog[3b7f65fa48c62bf4]::outer::inner::Shape>::area"),
            row("_RINvMNtCsgEmfK2I1SDS_4core3stre18trim_start_matchesReECsgY6Mt91CT9J_14rustc_demangle", "<str>::trim_start_matches::<&str>", "<str>::trim_start_matches::<&str>"),
            row("_RINvC1a1fAhj3_E", "a[0]::f::<[u8; 3: usize]>", "a[0]::f::<[u8; 3: usize]>"),
            row("_RINvC1a1fKln3_E", "a[0]::f::<-3: i32>", "a[0]::f::<-3: i32>"),
            row("_RINvC1a1fKc61_E", "a[0]::f::<'a': char>", "a[0]::f::<'a': char>"),
            row("_RINvC1a1fKb1_E", "a[0]::f::<true: bool>", "a[0]::f::<true: bool>"),
            row("_RINvC1a1fFG0_RL0_hEuE", "a[0]::f::<for<'a, 'b> fn(&'b u8)>", "a[0]::f::<for<'a, 'b> fn(&'b u8)>"),
            row("_RINvC1a1fFKCEuE", "a[0]::f::<extern \"C\" fn()>", "a[0]::f::<extern \"C\" fn()>"),
            // not mangled, or truncated: unchanged
            row("main", "main", "main"),
            row("JNI_CreateJavaVM", "JNI_CreateJavaVM", "JNI_CreateJavaVM"),
            row("_Z", "_Z", "_Z"),
            row("_Z1", "_Z1", "_Z1"),
            row("_ZN1A", "_ZN1A", "_ZN1A"),
            row("_ZN1A1fE", "A::f", "A::f"),
            // qualifier order
            row("_Z1fPrVKi", "f(int const volatile restrict*)", "f"),
            row("_Z1fPrKi", "f(int const restrict*)", "f"),
            row("_ZNVK1A1fEv", "A::f() const volatile", "A::f")
        );
    }

    private static Arguments row(String mangled, String full, String brief) {
        return Arguments.of(mangled, full, brief);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void printsAsCppFiltDoes(String mangled, String full, String brief) {
        assertEquals(full, demangler.full(mangled), "full form");
        assertEquals(brief, demangler.brief(mangled), "brief form");
    }
}
