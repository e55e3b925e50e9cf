// GET /health: 200 {"status": "ok"} while the server takes requests.
#include "serving/routes/routes.h"

namespace phasor::serving {

void Health(Service&, const HttpRequest&, HttpReply& reply) { reply.body = "{\"status\":\"ok\"}"; }

}  // namespace phasor::serving
