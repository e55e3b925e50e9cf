// oneDNN's own matmul, alone, at the shapes of BM_Bf16Linear and
// BM_Int8Linear: what phasor's amx target (engine/kernels/onednn_matmul.h) is
// read against. One primitive for all the rows, weights reordered once
// (format_tag::any), oneDNN's default threading (OpenMP, `threads` threads),
// bias and relu fused at bf16; int8 u8 x s8 into int32 (phasor dequantizes
// those itself). The "kernel" label is oneDNN's implementation (on Sapphire
// Rapids brg:avx512_core_amx, elsewhere its AVX-512 ones).
//   build/bin/phasor_bench
//   --benchmark_filter='OnednnMatmul|Bf16Linear|Int8Linear|PackedLinear/512/768'
// with PHASOR_ISA=amx for phasor's products through oneDNN (README, "CPUs").
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

namespace phasor {
namespace {

using dnnl::memory;
using Dt = memory::data_type;
using Tag = memory::format_tag;

// Args: rows, in, out, threads, int8 (0: bf16).
void BM_OnednnMatmul(benchmark::State& state) {
  const memory::dim rows = state.range(0), in = state.range(1), out = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const bool int8 = state.range(4) != 0;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::desc src({rows, in}, int8 ? Dt::u8 : Dt::bf16, Tag::ab);
  const memory::desc any({in, out}, int8 ? Dt::s8 : Dt::bf16, Tag::any);
  const memory::desc user({in, out}, int8 ? Dt::s8 : Dt::bf16, Tag::ba);  // W [out, in]
  const memory::desc dst({rows, out}, int8 ? Dt::s32 : Dt::f32, Tag::ab);
  const memory::desc bias({1, out}, Dt::f32, Tag::ab);
  dnnl::primitive_attr attr;
  if (!int8) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  const auto desc =
      int8 ? dnnl::matmul::desc(src, any, dst) : dnnl::matmul::desc(src, any, bias, dst);
  const dnnl::matmul::primitive_desc pd(desc, attr, engine);
  // Inputs: bytes 1 to 3 (bf16 1.0 to 1.5 and int8 small values alike).
  std::vector<uint16_t> data(static_cast<size_t>(rows * in + in * out), 0x3F80);
  memory src_m(src, engine, data.data()), w_user(user, engine, data.data() + rows * in);
  memory w_m(pd.weights_desc(), engine), dst_m(dst, engine), bias_m(bias, engine);
  dnnl::reorder(w_user, w_m).execute(stream, w_user, w_m);
  dnnl::matmul matmul(pd);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, w_m}, {DNNL_ARG_DST, dst_m}};
  if (!int8) args[DNNL_ARG_BIAS] = bias_m;
  for (auto _ : state) {
    matmul.execute(stream, args);
    stream.wait();
  }
  state.SetLabel(pd.impl_info_str());
  state.SetItemsProcessed(state.iterations() * rows);
  state.counters[int8 ? "GOP/s" : "GFLOP/s"] = benchmark::Counter(
      2.0 * rows * in * out * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
  omp_set_num_threads(saved);
}
BENCHMARK(BM_OnednnMatmul)
    ->ArgsProduct({{512}, {512}, {2048}, {1, 2}, {0, 1}})
    ->ArgsProduct({{512}, {768}, {3072}, {1}, {0, 1}})
    ->UseRealTime();

}  // namespace
}  // namespace phasor
