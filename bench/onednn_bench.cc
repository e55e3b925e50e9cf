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
// Attention's products (engine/kernels/onednn_attention.h), one head, one
// thread, side by side on the same shapes:
//   build/bin/phasor_bench --benchmark_filter='AttentionProducts'
// BM_OnednnAttentionProducts: oneDNN alone, q·kᵀ [seq, d]·[d, seq] and p·v
// [seq, seq]·[seq, d] as two whole matmuls; BM_PhasorAttentionProducts: the
// same head through phasor's tiles (their softmax between the products; keys
// and values packed once, outside the timing) on the avx512 target (route 0)
// and the amx target (1), and the amx target's oneDNN calls alone, as its
// tiles make them (2: what reads against oneDNN alone). GFLOP/s: 4·seq²·d.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/cpu.h"
#include "engine/kernels/attention_bf16.h"
#include "engine/kernels/onednn_attention.h"
#include "engine/kernels/onednn_matmul.h"

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

// A matmul primitive [m, k]·[k, n] with B reordered once into oneDNN's layout.
struct Product {
  dnnl::matmul matmul;
  memory a, b, c;
  Product(const dnnl::engine& engine, dnnl::stream& stream, memory::dim m, memory::dim k,
          memory::dim n, bool int8) {
    const memory::desc a_d({m, k}, int8 ? Dt::u8 : Dt::bf16, Tag::ab);
    const memory::desc b_d({k, n}, int8 ? Dt::s8 : Dt::bf16, Tag::any);
    const memory::desc c_d({m, n}, int8 ? Dt::s32 : Dt::f32, Tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_d, b_d, c_d), engine);
    a = memory(a_d, engine);
    c = memory(c_d, engine);
    memory plain(memory::desc({k, n}, int8 ? Dt::s8 : Dt::bf16, Tag::ab), engine);
    std::fill_n(static_cast<uint8_t*>(plain.get_data_handle()), plain.get_desc().get_size(), 1);
    std::fill_n(static_cast<uint8_t*>(a.get_data_handle()), a_d.get_size(), 1);
    b = memory(pd.weights_desc(), engine);
    dnnl::reorder(plain, b).execute(stream, plain, b);
    matmul = dnnl::matmul(pd);
  }
  void Run(dnnl::stream& stream) {
    matmul.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
  }
};

void AttentionCounters(benchmark::State& state, int64_t seq, int64_t d) {
  state.counters["GFLOP/s"] = benchmark::Counter(4.0 * seq * seq * d * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}

// Args: seq, d_head, int8 (scores u8 x s8 into int32; 0: bf16).
void BM_OnednnAttentionProducts(benchmark::State& state) {
  const memory::dim seq = state.range(0), d = state.range(1);
  const bool int8 = state.range(2) != 0;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  Product scores(engine, stream, seq, int8 ? (d + 3) / 4 * 4 : d, seq, int8);
  Product weighted(engine, stream, seq, seq, d, false);
  for (auto _ : state) {
    scores.Run(stream);
    weighted.Run(stream);
    stream.wait();
  }
  state.SetLabel("oneDNN alone");
  AttentionCounters(state, seq, d);
  omp_set_num_threads(saved);
}

// One head's q | k | v rows [seq, 3·d], its keys and values packed once for
// the route, and a tile's arguments.
struct Head {
  int64_t seq, d;
  bool int8;
  std::vector<float> qkv;
  std::vector<uint8_t, AlignedAllocator<uint8_t>> blocks;          // amx
  std::vector<uint16_t, AlignedAllocator<uint16_t>> keys, values;  // avx512
  int64_t block_bytes = 0;

  Head(int64_t n, int64_t d_head, bool int8_keys, bool amx) : seq(n), d(d_head), int8(int8_keys) {
    qkv.resize(static_cast<size_t>(seq * 3 * d));
    for (size_t i = 0; i < qkv.size(); ++i) qkv[i] = std::sin(0.37f * static_cast<float>(i));
    const int64_t ld = 3 * d;
    if (!amx) {
      keys.resize(int8 ? kernels::KeysInt8Values(seq, d) : kernels::KeysBf16Values(seq, d));
      values.resize(kernels::ValuesBf16Values(seq, d));
      (int8 ? kernels::PackKeysInt8 : kernels::PackKeysBf16)(&qkv[d], ld, seq, d, keys.data());
      kernels::PackValuesBf16(&qkv[2 * d], ld, seq, d, values.data());
      return;
    }
    block_bytes = kernels::OnednnAttentionBlockBytes(d, int8);
    blocks.resize(kernels::OnednnKeyBlocks(seq) * block_bytes);
    for (int64_t j0 = 0; j0 < seq; j0 += kernels::kOnednnKeyBlock) {
      kernels::PackOnednnBlock(&qkv[j0 * ld + d], &qkv[j0 * ld + 2 * d], ld,
                               std::min(kernels::kOnednnKeyBlock, seq - j0), d, int8,
                               blocks.data() + j0 / kernels::kOnednnKeyBlock * block_bytes);
    }
  }

  kernels::AttentionBf16Args Tile(int64_t q0, int64_t n_q, float* out) const {
    kernels::AttentionBf16Args a;
    a.q = &qkv[q0 * 3 * d];
    a.k = keys.data();
    a.v = values.data();
    a.out = out + q0 * d;
    a.ldq = 3 * d;
    a.ldo = d;
    a.n_q = std::min(n_q, seq - q0);
    a.n_keys = seq;
    a.d_head = d;
    a.scale = 0.125f;
    a.int8_keys = int8;
    a.band = {q0, -1, -1};
    return a;
  }
};

// The amx route's two products alone (no softmax), call for call as its tile
// makes them for whole tiles: every kOnednnTileRows queries against every
// block (seq a multiple of kOnednnTileRows).
void ProductsOnly(const Head& h, float* scores, uint16_t* p, float* out) {
  const int64_t rows = kernels::kOnednnTileRows;  // as a whole tile's calls
  static const std::vector<uint8_t> q(static_cast<size_t>(rows * 4096), 1);
  static const std::vector<float> q_scales(static_cast<size_t>(rows), 1.0f);
  for (int64_t r0 = 0; r0 < h.seq; r0 += rows) {
    for (int64_t b = 0; b < kernels::OnednnKeyBlocks(h.seq); ++b) {
      const uint8_t* block = h.blocks.data() + b * h.block_bytes;
      kernels::OnednnScores(rows, q.data(), q_scales.data(), block, h.d, h.int8, scores);
      kernels::OnednnWeighted(rows, p, block, h.d, h.int8, out);
    }
  }
}

// Args as BM_OnednnAttentionProducts's, then the route: 0 the avx512
// target's tile (attention_bf16.h), 1 the amx target's tile, 2 the amx
// target's products alone.
void BM_PhasorAttentionProducts(benchmark::State& state) {
  const bool int8 = state.range(2) != 0;
  const int64_t route = state.range(3);
  const Isa isa = route == 0 ? Isa::kAvx512 : Isa::kAmx;
  const std::vector<Isa> isas = AvailableIsas();
  if (std::find(isas.begin(), isas.end(), isa) == isas.end()) {
    state.SkipWithError("this CPU has no such target");
    return;
  }
  const Isa before = ActiveIsa();
  SetIsa(isa);
  const Head h(state.range(0), state.range(1), int8, route != 0);
  constexpr int64_t kTile = 128;  // MultiHeadSelfAttention::kQueryTile
  std::vector<float> out(static_cast<size_t>(h.seq * h.d));
  std::vector<float, AlignedAllocator<float>> scratch(
      std::max(kernels::AttentionOnednnScratchFloats(kTile, h.d),
               kernels::AttentionBf16ScratchFloats(kTile, h.d)));
  std::vector<uint16_t> p(static_cast<size_t>(kernels::kOnednnTileRows * kernels::kOnednnKeyBlock));
  for (auto _ : state) {
    if (route == 2) ProductsOnly(h, scratch.data(), p.data(), out.data());
    for (int64_t q0 = 0; route != 2 && q0 < h.seq; q0 += kTile) {
      if (route == 0) kernels::AttentionTileBf16(h.Tile(q0, kTile, out.data()), scratch.data());
      if (route == 1) {
        kernels::AttentionTileOnednn(h.Tile(q0, kTile, out.data()), h.blocks.data(),
                                     scratch.data());
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(route == 0 ? "avx512 tile" : route == 1 ? "amx tile" : "amx products alone");
  AttentionCounters(state, h.seq, h.d);
  SetIsa(before);
}

BENCHMARK(BM_OnednnAttentionProducts)->ArgsProduct({{128, 512, 2048}, {64}, {0, 1}})->UseRealTime();
BENCHMARK(BM_PhasorAttentionProducts)
    ->ArgsProduct({{128, 512, 2048}, {64}, {0, 1}, {0, 1, 2}})
    ->UseRealTime();

}  // namespace
}  // namespace phasor
