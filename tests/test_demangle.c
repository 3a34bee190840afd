/* test_demangle.c: unit tests of src/cuda/demangle.c. The demangled names are
 * compared with c++filt's (binutils: an independent reference, run here
 * at test time) where it is on the path, else with fixed cases worked out
 * by hand; hostile names (very long, nested deep, back-references that
 * multiply, cut short, not C++, not text) must come back bounded; the
 * shortener's steps are checked one by one. */
#include "testhelp.h"
#include "cuda/demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Names of the kinds a CUDA program's kernels have, and symbols that are
 * not valid manglings (c++filt leaves those as they are). */
static const char *const td_names[] = {
    "_Z6kernelPfS_i",
    "_Z3addIfEvPT_S1_S1_i",
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
    "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIff"
    "fEclERNS_18TensorIteratorBaseEEUlffE_EEjfLi4ELi4EEEEEvT1_",
    "_ZN12_GLOBAL__N_16kernelEv",
    "_ZNK3foo3barEv",
    "_ZN3fooC2Ev",
    "_ZN3fooD1Ev",
    "_Z3foov.cold",
    "_ZltI3FooEbRKT_S3_",
    "_ZN3foo3bazIiEclEv",
    "_ZN7cutlass6KernelINS_4gemm6kernel4GemmIiEEEEvNT_6ParamsE",
    "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6322cunn_SoftMaxForwardRegIfffNS1_22SoftMa"
    "xForwardEpilogueElLi4EEEvPT1_",
    "_Z3",
    "_Z999foo",
    "_ZN3foo",
    "_Z3foov$x",
    "_ZZ",
    "vecAdd",
    "main",
};
#define TD_NNAMES (sizeof td_names / sizeof td_names[0])

/* The same names as c++filt 2.40 prints them (worked out by hand and
 * checked against it once): the reference where c++filt is absent. */
static const char *const td_fixed[TD_NNAMES] = {
    "kernel(float*, float*, int)",
    "void add<float>(float*, float*, float*, int)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<"
    "float, at::native::sum_functor<float, float, float>::operator()(at::TensorIteratorBase&)::"
    "{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::"
    "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::"
    "TensorIteratorBase&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
    "(anonymous namespace)::kernel()",
    "foo::bar() const",
    "foo::foo()",
    "foo::~foo()",
    "foo() [clone .cold]",
    "bool operator< <Foo>(Foo const&, Foo const&)",
    "foo::baz<int>::operator()()",
    "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<int> >(cutlass::gemm::kernel::Gemm<int>::Params)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<float, float, float, at::native::"
    "(anonymous namespace)::SoftMaxForwardEpilogue, long, 4>(float*)",
    "_Z3",
    "_Z999foo",
    "_ZN3foo",
    "_Z3foov$x",
    "_ZZ",
    "vecAdd",
    "main",
};

/* c++filt's answer for every name of td_names into ref (each malloc'd);
 * 0, or -1 when c++filt is not there or did not answer them all. */
static int td_cxxfilt(char *ref[TD_NNAMES])
{
    char in[] = "/tmp/harness-dm-XXXXXX", cmd[128], line[4096];
    FILE *f, *p;
    size_t i, n = 0;
    int fd = mkstemp(in);

    if (fd < 0) return -1;
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        unlink(in);
        return -1;
    }
    for (i = 0; i < TD_NNAMES; i++) fprintf(f, "%s\n", td_names[i]);
    fclose(f);
    snprintf(cmd, sizeof cmd, "c++filt <%s 2>/dev/null", in);
    if ((p = popen(cmd, "r"))) {
        while (n < TD_NNAMES && fgets(line, sizeof line, p)) {
            line[strcspn(line, "\n")] = '\0';
            ref[n++] = strdup(line);
        }
        pclose(p);
    }
    unlink(in);
    if (n == TD_NNAMES) return 0;
    while (n) free(ref[--n]);
    return -1;
}

/* Every name against the reference: the same text where the reference
 * demangled it; where it left it as it is, no whole demangling here. */
static void test_dm_reference(void)
{
    char *ref[TD_NNAMES], out[4096], desc[300];
    int filt = td_cxxfilt(ref) == 0;
    size_t i, same = 0, asis = 0, cases = 0;

    printf("demangle: the reference is %s\n", filt ? "c++filt, run now" : "the fixed cases (no c++filt)");
    for (i = 0; i < TD_NNAMES; i++) {
        const char *want = filt ? ref[i] : td_fixed[i];
        dm_status st = dm_demangle(td_names[i], out, sizeof out);
        if (strcmp(want, td_names[i]) != 0) {
            cases++;
            same += st == DM_DEMANGLED && strcmp(out, want) == 0;
            if (st != DM_DEMANGLED || strcmp(out, want) != 0)
                printf("  %s\n    reference %s\n    here      %s\n", td_names[i], want, out);
        } else {
            asis += st != DM_DEMANGLED;
            if (st == DM_DEMANGLED) printf("  %s: demangled here as %s\n", td_names[i], out);
        }
    }
    snprintf(desc, sizeof desc, "demangle: %zu names the reference demangled read the same here",
             cases);
    th_check(desc, same == cases && cases >= 12);
    snprintf(desc, sizeof desc, "demangle: %zu names it left as they are are not demangled here",
             TD_NNAMES - cases);
    th_check(desc, asis == TD_NNAMES - cases);
    if (filt) {
        size_t agree = 0;
        for (i = 0; i < TD_NNAMES; i++) agree += strcmp(ref[i], td_fixed[i]) == 0;
        if (agree != TD_NNAMES) printf("  (c++filt differs from the fixed cases in %zu names)\n",
                                       TD_NNAMES - agree);
        for (i = 0; i < TD_NNAMES; i++) free(ref[i]);
    }
}

/* Names that are not C++ symbols, and what is not a name at all. */
static void test_dm_not_cxx(void)
{
    char out[64];
    th_check("demangle: an extern \"C\" kernel's name stays as it is",
             dm_demangle("vecAdd", out, sizeof out) == DM_AS_IS && strcmp(out, "vecAdd") == 0);
    th_check("demangle: \"f\" and \"i\" are not read as the types float and int",
             dm_demangle("f", out, sizeof out) == DM_AS_IS && strcmp(out, "f") == 0 &&
             dm_demangle("i", out, sizeof out) == DM_AS_IS && strcmp(out, "i") == 0);
    th_check("demangle: NULL and \"\" give \"\"",
             dm_demangle(NULL, out, sizeof out) == DM_AS_IS && out[0] == '\0' &&
             dm_demangle("", out, sizeof out) == DM_AS_IS && out[0] == '\0');
    th_check("demangle: a name with a space, a tab or bytes above 127 stays as it is",
             dm_demangle("_Z3foov bar", out, sizeof out) == DM_AS_IS &&
             strcmp(out, "_Z3foov bar") == 0 &&
             dm_demangle("_Z3fo\to", out, sizeof out) == DM_AS_IS &&
             dm_demangle("_Z3\xff\xfe" "av", out, sizeof out) == DM_AS_IS &&
             strcmp(out, "_Z3\xff\xfe" "av") == 0);
    th_check("demangle: a room of 1 byte gives \"\", of 0 bytes nothing is written",
             dm_demangle("_Z6kernelPfS_i", out, 1) != DM_AS_IS && out[0] == '\0' &&
             dm_demangle("_Z6kernelPfS_i", NULL, 0) == DM_AS_IS);
    th_check("demangle: a result longer than the room is cut, NUL-terminated",
             dm_demangle("_Z6kernelPfS_i", out, 8) == DM_DEMANGLED && strcmp(out, "kernel(") == 0);
}

/* Symbols cut short (as a record's names are, at their room) or beyond
 * what is handed to the demangler: the qualified name, marked. */
static void test_dm_prefix(void)
{
    const char *torch = td_names[3];
    char cut[128], out[512], *big;
    size_t i, n;

    memcpy(cut, torch, sizeof cut - 1);             /* cut at 127 bytes, as the probe does */
    cut[sizeof cut - 1] = '\0';
    th_check("demangle: torch's reduce kernel cut at 127 bytes reads as at::native::reduce_kernel<...>",
             dm_demangle(cut, out, sizeof out) == DM_PREFIX &&
             strcmp(out, "at::native::reduce_kernel<...>" DM_PARTLY) == 0);
    th_check("demangle: a nested name cut inside it keeps the scopes read",
             dm_demangle("_ZN3foo3ba", out, sizeof out) == DM_PREFIX &&
             strcmp(out, "foo" DM_PARTLY) == 0);
    th_check("demangle: a name cut after its template arguments began: name<...>",
             dm_demangle("_Z3addIfEvPT_S1", out, sizeof out) == DM_PREFIX &&
             strcmp(out, "add<...>" DM_PARTLY) == 0);
    th_check("demangle: the anonymous namespace and a constructor, cut short",
             dm_demangle("_ZN12_GLOBAL__N_13FooC2ERKS0", out, sizeof out) == DM_PREFIX &&
             strcmp(out, "(anonymous namespace)::Foo::Foo" DM_PARTLY) == 0);
    th_check("demangle: std:: and a template class's member, cut short",
             dm_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi.", out, sizeof out) == DM_PREFIX &&
             strcmp(out, "std::vector<...>::push_back" DM_PARTLY) == 0);
    th_check("demangle: a length past the end reads nothing: as it is",
             dm_demangle("_Z999foo", out, sizeof out) == DM_AS_IS && strcmp(out, "_Z999foo") == 0);
    /* A valid name longer than DM_MAX_IN: an identifier of 5000 bytes. */
    n = 5000;
    big = malloc(n + 32);
    if (!big) return;
    i = (size_t)snprintf(big, 32, "_ZN2at%zu", n);
    memset(big + i, 'k', n);
    memcpy(big + i + n, "Ev", 3);        /* i + n + 3 <= n + 32: i is 10 */
    th_check("demangle: a name beyond DM_MAX_IN is read by the bounded reader, cut to the room",
             dm_demangle(big, out, sizeof out) == DM_PREFIX && strlen(out) == sizeof out - 1 &&
             strncmp(out, "at::kkkk", 8) == 0);
    free(big);
}

/* A kernel name of 305 bytes with 21 back-references, as g++ mangles it:
 * its bound, 305 x 1.5^21 (1.5 MB), was over the old 1 MiB budget, and the
 * name came back "[partly read]"; demangled whole, as c++filt gives it. */
static void test_dm_backrefs(void)
{
    static const char name[] =
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_37implementation_details_of_elementwi"
        "se32VectorizedFunctorBaseWithCastingINS2_26MemoryLoaderWithoutCastingINS0_42TrivialOffsetC"
        "alculatorForInputsAndOutputsINS2_5ArrayIPcLi3EEEEES9_S8_EEEES8_NS4_IS8_S9_NS3_IS8_EEEENS4_"
        "IS9_S8_NS3_IS9_EEEEEEviT0_T1_T2_T3_";
#define TD_NS "at::native::implementation_details_of_elementwise::"
    static const char ac[] = TD_NS "Array<char*, 3>";
    static const char oc[] = "at::native::TrivialOffsetCalculatorForInputsAndOutputs<" TD_NS
                             "Array<char*, 3> >";
    char want[8192], out[8192], fb[1024], l1[1024], l2[1024];

    /* Every name here ends in '>': a '>' after it is " >". */
    snprintf(fb, sizeof fb, TD_NS "VectorizedFunctorBaseWithCasting<" TD_NS
             "MemoryLoaderWithoutCasting<%s, %s, %s > >", oc, oc, ac);
    snprintf(l1, sizeof l1, TD_NS "MemoryLoaderWithoutCasting<%s, %s, " TD_NS
             "VectorizedFunctorBaseWithCasting<%s > >", ac, oc, ac);
    snprintf(l2, sizeof l2, TD_NS "MemoryLoaderWithoutCasting<%s, %s, " TD_NS
             "VectorizedFunctorBaseWithCasting<%s > >", oc, ac, oc);
#undef TD_NS
    snprintf(want, sizeof want, "void at::native::vectorized_elementwise_kernel<4, %s, %s, %s, %s >"
             "(int, %s, %s, %s, %s)", fb, ac, l1, l2, fb, ac, l1, l2);
    if (dm_open(NULL, 0) != 0) {
        printf("SKIPPED demangle: 21 back-references: no demangler here\n");
        return;
    }
    th_check("demangle: a 305-byte name with 21 back-references comes back whole, as c++filt gives it",
             dm_demangle(name, out, sizeof out) == DM_DEMANGLED && strcmp(out, want) == 0);
}

/* Names built to hurt: deep nesting, multiplying back-references, a name
 * of a megabyte. Each must come back, bounded. */
static void test_dm_hostile(void)
{
    char out[256], *s;
    size_t i, n = 1 << 20;
    const char *doubling;

    s = malloc(n + 16);
    if (!s) return;
    memcpy(s, "_Z1fP", 5);
    memset(s + 5, 'P', 3000);
    memcpy(s + 3005, "iE", 3);
    th_check("demangle: 3000 pointer levels (within DM_MAX_IN) come back, cut to the room",
             dm_demangle(s, out, sizeof out) != DM_DEMANGLED || strlen(out) == sizeof out - 1);
    /* pair<T, T> of pair<T, T> of ...: each level doubles the text. */
    i = (size_t)snprintf(s, 64, "_Z1fI1ASt4pairIS0_S0_E");
    doubling = "S1_IS2_S2_E";
    while (i + 64 < 4000) i += (size_t)snprintf(s + i, 64, "%s", doubling);
    snprintf(s + i, 16, "EvT_");
    th_check("demangle: back-references that double the text at each level are not handed over",
             dm_demangle(s, out, sizeof out) != DM_DEMANGLED && strlen(out) < sizeof out);
    memset(s, 'a', n);
    memcpy(s, "_ZN", 3);
    s[n] = '\0';
    th_check("demangle: a name of 1 MiB comes back, cut to the room",
             dm_demangle(s, out, sizeof out) == DM_AS_IS && strlen(out) == sizeof out - 1);
    dm_shorten(s, 40, out, sizeof out);
    th_check("shorten: a name of 1 MiB is cut to the width", strlen(out) == 40 &&
             strcmp(out + 37, "...") == 0);
    memset(s, '<', n);
    s[n] = '\0';
    dm_shorten(s, 40, out, sizeof out);
    th_check("shorten: 1 MiB of unmatched '<' ends within the width", strlen(out) <= 40);
    for (i = 0; i < n; i++) s[i] = "<>"[i % 2];
    dm_shorten(s, 40, out, sizeof out);
    th_check("shorten: 1 MiB of \"<>\" ends within the width", strlen(out) <= 40);
    free(s);
}

/* The shortener's steps, each on its own. */
static void test_dm_shorten(void)
{
    static const char torch[] =
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<"
        "float, at::native::sum_functor<float, float, float>::operator()(at::TensorIteratorBase&)::"
        "{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float>)";
    char out[200];

    dm_shorten("kernel(float*, float*, int)", 40, out, sizeof out);
    th_check("shorten: a name that fits stays whole", strcmp(out, "kernel(float*, float*, int)") == 0);
    dm_shorten("void add<float>(float*, float*, float*, int)", 30, out, sizeof out);
    th_check("shorten: the return type and parameters go first", strcmp(out, "add<float>") == 0);
    dm_shorten(torch, 70, out, sizeof out);
    th_check("shorten: torch's reduce kernel at 70: the deeper template levels collapse",
             strcmp(out, "at::native::reduce_kernel<512, 1, at::native::ReduceOp<...> >") == 0);
    dm_shorten(torch, 40, out, sizeof out);
    th_check("shorten: at 40: every template argument collapses",
             strcmp(out, "at::native::reduce_kernel<...>") == 0);
    dm_shorten(torch, 24, out, sizeof out);
    th_check("shorten: at 24: the leading scopes go", strcmp(out, "...reduce_kernel<...>") == 0);
    dm_shorten(torch, 12, out, sizeof out);
    th_check("shorten: at 12: cut, ending in ...", strcmp(out, "at::nativ...") == 0);
    dm_shorten("bool operator< <Foo>(Foo const&, Foo const&)", 20, out, sizeof out);
    th_check("shorten: operator< is a name, not a bracket", strcmp(out, "operator< <Foo>") == 0);
    dm_shorten("foo::baz<int>::operator()() const", 26, out, sizeof out);
    th_check("shorten: operator() keeps its parentheses", strcmp(out, "foo::baz<int>::operator()") == 0);
    dm_shorten("(anonymous namespace)::kernel(float*, int)", 30, out, sizeof out);
    th_check("shorten: the anonymous namespace is a scope, not a parameter list",
             strcmp(out, "(anonymous namespace)::kernel") == 0);
    dm_shorten("decltype (foo<int>()) bar<int, long, char, short>(int)", 30, out, sizeof out);
    th_check("shorten: a decltype return type goes with its parentheses",
             strcmp(out, "bar<int, long, char, short>") == 0);
    dm_shorten("at::native::reduce_kernel<...>" DM_PARTLY, 40, out, sizeof out);
    th_check("shorten: dm's mark stays at the end", strcmp(out, "...reduce_kernel<...>" DM_PARTLY) == 0);
    dm_shorten("a<b>(", 3, out, sizeof out);
    th_check("shorten: an unclosed parameter list, width 3", strcmp(out, "a<b") == 0 ||
             strlen(out) <= 3);
    dm_shorten("x>>>>>>>>::y<<<<(((())", 10, out, sizeof out);
    th_check("shorten: brackets that do not match end within the width", strlen(out) <= 10);
    dm_shorten(torch, 500, out, 20);
    th_check("shorten: the width is cut to the room", strlen(out) == 19);
    dm_table_name(td_names[3], 40, out, sizeof out);
    th_check("table name: demangled, then shortened", strcmp(out, "at::native::reduce_kernel<...>") == 0);
}

/* The names the probe recorded on the H200 (results/h200-program-*.json:
 * cut at 127 bytes where longer) as the table prints them, at width 72. */
static void test_dm_recorded(void)
{
    static const char *const cases[][2] = {
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_f"
     "unctorIfffEclERNS_14TensorIteratorEEUlf",
      "at::native::reduce_kernel<...> [partly read]" },
    { "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna"
     "4_alignc4_execute_kernel__5x_cublas",
      "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsi..." },
    { "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6322cunn_SoftMaxForwardRegIfffNS"
     "1_22SoftMaxForwardEpilogueElLi4EEEvPT1_",
      "at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<...>" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_18GeluCUDAKernelImplERNS_18Tenso"
     "rIteratorBaseENS0_8GeluTypeEENKUlvE0_cl",
      "at::native::vectorized_elementwise_kernel<...> [partly read]" },
    { "_ZN2at6native54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_0c5b6e8543distribution_elem"
     "entwise_grid_stride_kernelIfLi4EZNS0_9t",
      "...distribution_elementwise_grid_stride_kernel<...> [partly read]" },
    { "_Z9vectorAddPKfS0_Pfi",
      "vectorAdd(float const*, float const*, float*, int)" },
    { "_Z11vectorScalePffi",
      "vectorScale(float*, float, int)" },
    };
    char out[128], desc[200];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dm_table_name(cases[i][0], 72, out, sizeof out);
        snprintf(desc, sizeof desc, "table name: a name recorded on the H200 reads %.100s", cases[i][1]);
        th_check(desc, strcmp(out, cases[i][1]) == 0);
        if (strcmp(out, cases[i][1]) != 0) printf("  got %s\n", out);
    }
}

/* Without libstdc++: every name stays as it is; then back to the default. */
static void test_dm_absent(void)
{
    char why[512] = "", out[128];
    int rc = dm_open_lib("/nonexistent/libstdc++.so.6", why, sizeof why);
    th_check("demangle: a library that is not there: dm_open says there is no C++ demangler",
             rc == -1 && strncmp(why, "no C++ demangler: ", 18) == 0 &&
             dm_open(out, sizeof out) == -1 && strcmp(out, why) == 0);
    th_check("demangle: without the demangler a C++ symbol stays as it is",
             dm_demangle("_Z6kernelPfS_i", out, sizeof out) == DM_AS_IS &&
             strcmp(out, "_Z6kernelPfS_i") == 0);
    rc = dm_open_lib("libm.so.6", why, sizeof why);
    th_check("demangle: a library without __cxa_demangle says so",
             rc == -1 && strstr(why, "has no __cxa_demangle") != NULL);
    rc = dm_open_lib(NULL, why, sizeof why);
    th_check("demangle: the default library again",
             rc == 0 && dm_demangle("_Z6kernelPfS_i", out, sizeof out) == DM_DEMANGLED);
}

void test_demangle(void)
{
    char why[512] = "";
    if (dm_open(why, sizeof why) != 0) {
        printf("demangle: %s: the demangling cases are passed over\n", why);
        test_dm_not_cxx();
        return;
    }
    test_dm_reference();
    test_dm_not_cxx();
    test_dm_prefix();
    test_dm_backrefs();
    test_dm_hostile();
    test_dm_shorten();
    test_dm_recorded();
    test_dm_absent();
}
