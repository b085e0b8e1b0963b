// Credentials in clone URLs and the API token are scrubbed from whatever is stored or printed.
#include <catch2/catch.hpp>

#include "core/crawl/secret_redaction.h"

using namespace mine;

TEST_CASE("URLs lose their credentials and nothing else", "[crawl][secrets]") {
  CHECK(url_without_credentials("https://x-access-token:ghp_abc@github.com/o/r.git") == "https://github.com/o/r.git");
  CHECK(url_without_credentials("http://ghp_abc@127.0.0.1:8080/o/r.git") == "http://127.0.0.1:8080/o/r.git");
  CHECK(url_without_credentials("https://github.com/o/r.git") == "https://github.com/o/r.git");
  CHECK(url_without_credentials("git://127.0.0.1:9418/o/r.git") == "git://127.0.0.1:9418/o/r.git");
  // An '@' after the host belongs to the path, not to credentials.
  CHECK(url_without_credentials("https://github.com/o/r@v1.git") == "https://github.com/o/r@v1.git");
  CHECK(url_without_credentials("https://a:b@c@host/x") == "https://host/x");
  CHECK(url_without_credentials("/local/path@x") == "/local/path@x");
  CHECK(url_without_credentials("") == "");
}

TEST_CASE("secrets are replaced wherever they appear", "[crawl][secrets]") {
  CHECK(redact("token ghp_abc and ghp_abc again", "ghp_abc") == "token *** and *** again");
  CHECK(redact("nothing here", "") == "nothing here");
  CHECK(redact("aaaa", "aa") == "******");
  const std::string url = "https://user:s3cret@host/r.git";
  CHECK(redact_url_credentials("failed for user:s3cret@host: 401", url) == "failed for ***@host: 401");
  CHECK(redact_url_credentials("password s3cret rejected", url) == "password *** rejected");
  CHECK(redact_url_credentials("plain message", "https://host/r.git") == "plain message");
}
