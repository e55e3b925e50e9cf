// engine/kernels/onednn_matmul.h over oneDNN's C++ API (matmul, reorder),
// executed through its C API, whose argument arrays live on the stack: a call
// allocates nothing once its thread has run that shape.
//
// Threads: Debian's oneDNN runs on OpenMP (DNNL_CPU_RUNTIME OMP, libgomp,
// the runtime phasor's thread count is read from). Every primitive is made
// and run with the calling thread's OpenMP thread count set to 1 for the
// call, so oneDNN neither starts a team nor sizes its blocking for one: the
// threads are those of ParallelTasks, which hands out the row tiles.
#include "engine/kernels/onednn_matmul.h"

#include "engine/error.h"

#if PHASOR_ONEDNN
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "engine/kernels/onednn_common.h"
#endif

namespace phasor::kernels {

#if PHASOR_ONEDNN

namespace {

using dnnl::memory;
using Dt = memory::data_type;
using Tag = memory::format_tag;

dnnl::engine& Engine() { return OnednnEngine(); }
using OneThread = OnednnOneThread;

// What a primitive is made for: kOnednnRows dense rows of in values times W
// [out, in], into dense rows of out. (oneDNN 2.6's brgemm matmul, its AMX
// and AVX-512 kernels, takes dense rows only: with a row stride it falls back
// to gemm:jit on plain weights.)
struct Shape {
  bool int8 = false;
  int64_t out = 0, in = 0;
  Activation act = Activation::kIdentity;
  auto Key() const { return std::make_tuple(int8, out, in, static_cast<int>(act)); }
  bool operator<(const Shape& o) const { return Key() < o.Key(); }
  bool operator==(const Shape& o) const { return Key() == o.Key(); }
};

struct Primitive {
  Shape shape;
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul matmul;
};

// The epilogue oneDNN fuses after the bias: act as an eltwise post-op.
dnnl::primitive_attr Attributes(Activation act) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops ops;
  switch (act) {
    case Activation::kIdentity:
      break;
    case Activation::kRelu:  // phasor's, after: oneDNN's makes a NaN 0
      break;
    case Activation::kGelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
      break;
    case Activation::kGeluTanh:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
      break;
    case Activation::kSilu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);
      break;
  }
  attr.set_post_ops(ops);
  return attr;
}

std::unique_ptr<Primitive> Make(const Shape& s) {
  const memory::dim m = kOnednnRows;
  const memory::desc src({m, s.in}, s.int8 ? Dt::u8 : Dt::bf16, Tag::ab);
  // B = Wᵀ: [in, out]; the layout is oneDNN's choice.
  const memory::desc weights({s.in, s.out}, s.int8 ? Dt::s8 : Dt::bf16, Tag::any);
  const memory::desc dst({m, s.out}, s.int8 ? Dt::s32 : Dt::f32, Tag::ab);
  OneThread one;  // blocking sized for one thread
  auto p = std::make_unique<Primitive>();
  p->shape = s;
  if (s.int8) {
    p->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), Attributes(s.act),
                                         Engine());
  } else {
    const memory::desc bias({1, s.out}, Dt::f32, Tag::ab);
    p->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias, dst),
                                         Attributes(s.act), Engine());
  }
  p->matmul = dnnl::matmul(p->pd);
  return p;
}

// The process's primitives, one a shape, made on first use and kept.
const Primitive& Find(const Shape& s) {
  static std::mutex mutex;
  static std::map<Shape, std::unique_ptr<Primitive>> primitives;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Primitive>& p = primitives[s];
  if (!p) {
    try {
      p = Make(s);
    } catch (const dnnl::error& e) {
      primitives.erase(s);
      throw Error(std::string("oneDNN matmul ") + std::to_string(s.in) + " -> " +
                  std::to_string(s.out) + ": " + e.what());
    }
  }
  return *p;
}

// A thread's stream, scratchpad, the padded tiles of a last partial call and
// its memory objects per primitive (their data pointers set per call).
struct Bound {
  memory src, dst, scratchpad;
};
struct ThreadState {
  dnnl::stream stream{Engine()};
  std::vector<uint8_t> scratchpad, pad_src, pad_dst;
  std::map<const Primitive*, Bound> bound;

  Bound& Bind(const Primitive& p) {
    auto it = bound.find(&p);
    if (it != bound.end()) return it->second;
    const size_t need = p.pd.scratchpad_desc().get_size();
    if (scratchpad.size() < need) scratchpad.resize(need);
    Bound b{memory(p.pd.src_desc(), Engine(), nullptr), memory(p.pd.dst_desc(), Engine(), nullptr),
            memory(p.pd.scratchpad_desc(), Engine(), nullptr)};
    return bound.emplace(&p, std::move(b)).first->second;
  }
};

ThreadState& State() {
  thread_local ThreadState state;
  return state;
}

}  // namespace

struct OnednnMatmul::Impl {
  Shape load;            // the shape the weights were reordered for
  memory::desc layout;   // their layout
  memory weights;        // W reordered
  std::vector<float> b;  // [out] (bf16; zero without a bias)
  memory bias;           // over b
  // The primitives this layer used, found without the lock (one an
  // activation).
  static constexpr int kSlots = 8;
  mutable std::array<std::atomic<const Primitive*>, kSlots> slots{};

  const Primitive& For(const Shape& s) const;
  template <class Src, class Dst>
  void Run(const Shape& s, const Src* x, int64_t ldx, int64_t rows, Dst* y, int64_t ldy) const;
};

const Primitive& OnednnMatmul::Impl::For(const Shape& s) const {
  for (const auto& slot : slots) {
    const Primitive* p = slot.load(std::memory_order_acquire);
    if (p == nullptr) break;
    if (p->shape == s) return *p;
  }
  const Primitive& p = Find(s);
  if (p.pd.weights_desc() != layout) {
    throw Error("oneDNN matmul " + std::to_string(s.in) + " -> " + std::to_string(s.out) +
                ": another activation wants another weights layout");
  }
  for (auto& slot : slots) {
    const Primitive* expected = nullptr;
    if (slot.compare_exchange_strong(expected, &p) || expected == &p) break;
  }
  return p;
}

// y [rows, out] (row stride ldy) from x [rows, in] (row stride ldx), in
// calls of kOnednnRows rows; a last partial call, or rows of another stride,
// on dense copies (zero rows past the last).
template <class Src, class Dst>
void OnednnMatmul::Impl::Run(const Shape& s, const Src* x, int64_t ldx, int64_t rows, Dst* y,
                             int64_t ldy) const {
  const Primitive& p = For(s);
  ThreadState& t = State();
  Bound& b = t.Bind(p);
  b.scratchpad.set_data_handle(t.scratchpad.data());
  OneThread one;
  for (int64_t r0 = 0; r0 < rows; r0 += kOnednnRows) {
    const int64_t n = std::min(kOnednnRows, rows - r0);
    const Src* src = x + r0 * ldx;
    Dst* dst = y + r0 * ldy;
    const bool copy_src = n < kOnednnRows || ldx != s.in,
               copy_dst = n < kOnednnRows || ldy != s.out;
    if (copy_src) {
      t.pad_src.resize(kOnednnRows * s.in * sizeof(Src));
      auto* dense = reinterpret_cast<Src*>(t.pad_src.data());  // [kOnednnRows, in]
      for (int64_t r = 0; r < n; ++r)
        std::copy(src + r * ldx, src + r * ldx + s.in, dense + r * s.in);
      std::fill(dense + n * s.in, dense + kOnednnRows * s.in, Src{0});
      src = dense;
    }
    if (copy_dst) {
      t.pad_dst.resize(kOnednnRows * s.out * sizeof(Dst));
      dst = reinterpret_cast<Dst*>(t.pad_dst.data());  // [kOnednnRows, out]
    }
    b.src.set_data_handle(const_cast<Src*>(src));
    b.dst.set_data_handle(dst);
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, b.src.get()},
                                    {DNNL_ARG_WEIGHTS, weights.get()},
                                    {DNNL_ARG_DST, b.dst.get()},
                                    {DNNL_ARG_SCRATCHPAD, b.scratchpad.get()},
                                    {DNNL_ARG_BIAS, s.int8 ? nullptr : bias.get()}};
    const int n_args = s.int8 ? 4 : 5;
    if (dnnl_primitive_execute(p.matmul.get(), t.stream.get(), n_args, args) != dnnl_success ||
        dnnl_stream_wait(t.stream.get()) != dnnl_success) {
      throw Error("oneDNN matmul " + std::to_string(s.in) + " -> " + std::to_string(s.out) +
                  " failed");
    }
    for (int64_t r = 0; copy_dst && r < n; ++r) {
      std::copy(dst + r * s.out, dst + (r + 1) * s.out, y + (r0 + r) * ldy);
    }
  }
}

namespace {

// W [out, in] (elements of type dt) reordered into the layout of the
// primitive for s.
void Reorder(const void* w, Dt dt, const Shape& s, OnednnMatmul::Impl& impl) {
  const Primitive& p = Find(s);
  impl.load = s;
  impl.layout = p.pd.weights_desc();
  impl.weights = memory(impl.layout, Engine());
  // W [out, in] row-major is B = Wᵀ [in, out] with strides {1, in}: tag ba.
  memory user(memory::desc({s.in, s.out}, dt, Tag::ba), Engine(), const_cast<void*>(w));
  OneThread one;
  dnnl::stream stream(Engine());
  dnnl::reorder(user, impl.weights).execute(stream, user, impl.weights);
  stream.wait();
}

std::shared_ptr<const OnednnMatmul> Make(const void* w, const float* b, bool int8, int64_t out,
                                         int64_t in) {
  auto impl = std::make_unique<OnednnMatmul::Impl>();
  impl->load = Shape{int8, out, in, Activation::kIdentity};
  if (!int8) {
    impl->b.assign(static_cast<size_t>(out), 0.0f);
    if (b != nullptr) std::copy(b, b + out, impl->b.begin());
  }
  if (out > 0 && in > 0) {
    try {
      Reorder(w, int8 ? Dt::s8 : Dt::bf16, impl->load, *impl);
      if (!int8) {
        impl->bias = memory(memory::desc({1, out}, Dt::f32, Tag::ab), Engine(), impl->b.data());
      }
    } catch (const dnnl::error& e) {
      throw Error(std::string("oneDNN: cannot reorder weights [") + std::to_string(out) + ", " +
                  std::to_string(in) + "]: " + e.what());
    }
  }
  return std::make_shared<const OnednnMatmul>(std::move(impl));
}

}  // namespace

bool HaveOnednn() { return true; }

bool OnednnHasAmx() { return dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_amx; }

const char* OnednnBf16Kernel() {
  static const std::string name = Find(Shape{false, 768, 768}).pd.impl_info_str();
  return name.c_str();
}

OnednnMatmul::OnednnMatmul(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OnednnMatmul::~OnednnMatmul() = default;

std::shared_ptr<const OnednnMatmul> OnednnMatmul::MakeBf16(const uint16_t* w, const float* b,
                                                           int64_t out, int64_t in) {
  return Make(w, b, false, out, in);
}

std::shared_ptr<const OnednnMatmul> OnednnMatmul::MakeInt8(const int8_t* wq, int64_t out,
                                                           int64_t in) {
  return Make(wq, nullptr, true, out, in);
}

int64_t OnednnMatmul::bytes() const {
  const int64_t weights = impl_->load.out > 0 && impl_->load.in > 0
                              ? static_cast<int64_t>(impl_->layout.get_size())
                              : 0;
  return weights + static_cast<int64_t>(impl_->b.size() * sizeof(float));
}

const char* OnednnMatmul::kernel() const {
  const Shape& s = impl_->load;
  if (s.out == 0 || s.in == 0) return "";
  return Find(s).pd.impl_info_str();
}

void OnednnMatmul::RunBf16(const uint16_t* xb, int64_t ldx, int64_t rows, float* y, int64_t ldy,
                           Activation act) const {
  const Shape& load = impl_->load;
  if (rows <= 0 || load.out == 0) return;
  if (load.in == 0) {  // y = act(b)
    for (int64_t r = 0; r < rows; ++r) Activate(act, impl_->b.data(), load.out, y + r * ldy);
    return;
  }
  impl_->Run(Shape{false, load.out, load.in, act}, xb, ldx, rows, y, ldy);
  for (int64_t r = 0; act == Activation::kRelu && r < rows; ++r) {
    Activate(act, y + r * ldy, load.out, y + r * ldy);
  }
}

void OnednnMatmul::RunInt8(const uint8_t* q, int64_t ldq, int64_t rows, int32_t* acc,
                           int64_t ldacc) const {
  const Shape& load = impl_->load;
  if (rows <= 0 || load.out == 0) return;
  if (load.in == 0) {
    for (int64_t r = 0; r < rows; ++r) std::fill(acc + r * ldacc, acc + r * ldacc + load.out, 0);
    return;
  }
  impl_->Run(Shape{true, load.out, load.in, Activation::kIdentity}, q, ldq, rows, acc, ldacc);
}

#else  // built without oneDNN: no amx target

struct OnednnMatmul::Impl {};

bool HaveOnednn() { return false; }
bool OnednnHasAmx() { return false; }
const char* OnednnBf16Kernel() { return ""; }

OnednnMatmul::OnednnMatmul(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OnednnMatmul::~OnednnMatmul() = default;

std::shared_ptr<const OnednnMatmul> OnednnMatmul::MakeBf16(const uint16_t*, const float*, int64_t,
                                                           int64_t) {
  throw Error("this build has no oneDNN (the amx target)");
}
std::shared_ptr<const OnednnMatmul> OnednnMatmul::MakeInt8(const int8_t*, int64_t, int64_t) {
  throw Error("this build has no oneDNN (the amx target)");
}
int64_t OnednnMatmul::bytes() const { return 0; }
const char* OnednnMatmul::kernel() const { return ""; }
void OnednnMatmul::RunBf16(const uint16_t*, int64_t, int64_t, float*, int64_t, Activation) const {}
void OnednnMatmul::RunInt8(const uint8_t*, int64_t, int64_t, int32_t*, int64_t) const {}

#endif

}  // namespace phasor::kernels
