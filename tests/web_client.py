"""What the web page's socket and HTTP tests share (``test_web_protocol``,
``test_web_fuzz``): a records folder and a server on Starlette's test client, one per test
module, and the socket's next message. Import it after the modules' skip checks of the
web extra."""

import json

import pytest
from starlette.testclient import TestClient

from coinche_rl.web.app import create_app


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def client(records):
    with TestClient(create_app(records=str(records), searches=1)) as c:
        yield c


def recv(ws):
    """The socket's next message, decoded."""
    return json.loads(ws.receive_text())
