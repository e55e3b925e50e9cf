// The server's routes: one file each, each listed once in routes.cc. A route
// reads a request's body and writes its answer; it throws ApiError
// (serving/api.h) for anything it refuses, and the HTTP layer writes
// that with its status, in OpenAI's shape on /v1/* and TEI's elsewhere.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "serving/service.h"

namespace phasor::serving {

struct HttpRequest {
  std::string body;
  // Whether the client has closed its connection (polled while it waits).
  std::function<bool()> client_gone;
};

struct HttpReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

using RouteHandler = void (*)(Service&, const HttpRequest&, HttpReply&);

struct Route {
  const char* method;  // "GET" or "POST"
  const char* path;
  // Encodes: counted against --max-concurrent-requests.
  bool computes;
  RouteHandler handle;
};

// Every route, in the order the README lists them.
const std::vector<Route>& Routes();

// ApiError 424 naming why unless the model answers /embed (embed.cc).
void CheckEmbeds(const Service& service);
// ApiError 424 naming why unless the model has a classification head (rerank.cc).
void CheckClassifies(const Service& service, const char* route);

void OpenAiEmbeddings(Service& service, const HttpRequest& req,
                      HttpReply& reply);                                    // openai_embeddings.cc
void Embed(Service& service, const HttpRequest& req, HttpReply& reply);     // embed.cc
void Rerank(Service& service, const HttpRequest& req, HttpReply& reply);    // rerank.cc
void Predict(Service& service, const HttpRequest& req, HttpReply& reply);   // predict.cc
void Tokenize(Service& service, const HttpRequest& req, HttpReply& reply);  // tokenize.cc
void Health(Service& service, const HttpRequest& req, HttpReply& reply);    // health.cc
void Info(Service& service, const HttpRequest& req, HttpReply& reply);      // info.cc
void MetricsPage(Service& service, const HttpRequest& req, HttpReply& reply);  // metrics.cc

}  // namespace phasor::serving
