// GET /metrics: Prometheus' text format (serving/metrics.h).
#include "serving/routes/routes.h"

namespace phasor::serving {

void MetricsPage(Service& service, const HttpRequest&, HttpReply& reply) {
  reply.content_type = "text/plain; version=0.0.4";
  reply.body = service.metrics().Render(service.batcher().queued_sequences(), service.in_flight());
}

}  // namespace phasor::serving
