"""A real S3-compatible server (moto 5.2) on 127.0.0.1, for the object store tests and benchmarks.

moto's threaded server checks a conditional PUT (``If-None-Match: *``) and then stores without a
lock, so two racing PUTs could both succeed inside moto: every request is serialised here (one lock
around the WSGI app), so the races the tests provoke are paimon-sql's, not moto's. Each request's
response body size is counted, so tests can report the bytes a read fetched.

Run alone (``python -m tests.objectstore._server``) it prints its endpoint and serves until killed.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from werkzeug.serving import make_server

ACCESS_KEY = "paimon-test-key"
SECRET_KEY = "paimon-test-secret"


_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")
_DENIED = (
    b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS '
    b"Access Key Id you provided does not exist in our records.</Message></Error>"
)

_FORBIDDEN = (
    b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access '
    b"Denied</Message></Error>"
)


class _Serialised:
    """A WSGI app that runs one request of `app` at a time."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.lock = threading.Lock()
        self.requests = 0
        self.log: list[str] = []  # "METHOD /path?query" of each request
        #: Requests ("METHOD /path") matching this pattern are refused with 403 AccessDenied, as a
        #: store whose policy forbids them would (fault injection at the server, not in paimon-sql).
        self.deny: re.Pattern[str] | None = None
        #: The next request matching this pattern is carried out, but answered 500 (a response
        #: lost on the way back); the pattern is then cleared.
        self.lose_once: re.Pattern[str] | None = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        signed = _CREDENTIAL.search(environ.get("HTTP_AUTHORIZATION", ""))
        if signed is not None and signed.group(1) != ACCESS_KEY:
            start_response("403 Forbidden", [("Content-Type", "application/xml")])
            return [_DENIED]
        line = f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}"
        if self.deny is not None and self.deny.search(line):
            start_response("403 Forbidden", [("Content-Type", "application/xml")])
            return [_FORBIDDEN]
        with self.lock:
            self.requests += 1
            query = environ.get("QUERY_STRING", "")
            self.log.append(f"{line}?{query}")
            if self.lose_once is not None and self.lose_once.search(line):
                self.lose_once = None
                list(self.app(environ, lambda *args, **kwargs: None))
                start_response("500 Internal Server Error", [("Content-Type", "application/xml")])
                return [b"<Error><Code>InternalError</Code><Message>lost</Message></Error>"]
            return list(self.app(environ, start_response))


class S3Server:
    """moto's S3 behind a lock on a free port of 127.0.0.1; `endpoint` is its URL."""

    def __init__(self) -> None:
        from moto.server import DomainDispatcherApplication, create_backend_app

        app = _Serialised(DomainDispatcherApplication(create_backend_app))
        self.app = app
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.endpoint = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def client(self) -> Any:
        """A boto3 S3 client for this server (moto depends on boto3)."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1",
        )

    def create_bucket(self, name: str) -> None:
        """Create bucket `name` (paimon-sql never creates buckets)."""
        self.client().create_bucket(Bucket=name)

    def env(self) -> dict[str, str]:
        """The AWS_* environment variables that point a client at this server."""
        return {
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ALLOW_HTTP": "true",
        }

    def options(self) -> dict[str, str]:
        """The same as `storage_options` in obstore's key names."""
        return {
            "aws_access_key_id": ACCESS_KEY,
            "aws_secret_access_key": SECRET_KEY,
            "aws_region": "us-east-1",
            "aws_endpoint": self.endpoint,
            "aws_allow_http": "true",
        }

    def stop(self) -> None:
        """Shut the server down."""
        self._server.shutdown()
        self._thread.join(timeout=10)


if __name__ == "__main__":
    server = S3Server()
    print(server.endpoint, flush=True)
    threading.Event().wait()
