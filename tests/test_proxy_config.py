"""The nginx configuration for several ``integrator-lab serve`` processes
(``python -m integrator_lab.dev.proxy_config``): bad input names its option and range, and
nginx accepts what it prints. tests/server/test_proxy.py runs it with two processes."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from integrator_lab.dev import proxy_config


@pytest.mark.parametrize(
    "argv, named, accepted",
    [
        (["--ports", "0"], "--ports", "[1, 65535]"),
        (["--ports", "5101", "70000"], "--ports", "[1, 65535]"),
        (["--ports", "fifty"], "--ports", "[1, 65535]"),
        (["--ports", "5101", "5101"], "--ports", "named twice"),
        (["--ports", "5101", "--listen", "127.0.0.1:"], "--listen", "[1, 65535]"),
        (["--ports", "5101", "--listen", ":8080"], "--listen", "ADDRESS:PORT"),
        ([], "--ports", "required"),
    ],
    ids=["zero", "too-high", "not-a-number", "twice", "no-port", "no-address", "none"],
)
def test_bad_input_names_the_option_and_what_it_accepts(argv, named, accepted, capsys):
    with pytest.raises(SystemExit) as ended:
        proxy_config.main(argv)
    assert ended.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert named in error and accepted in error


def test_each_process_is_told_the_proxys_origin_and_to_read_its_headers():
    text = proxy_config.config([5101, 5102], "8080", ["lab.example.org"])
    for port in (5101, 5102):
        assert f"server 127.0.0.1:{port};" in text
        assert (
            f"integrator-lab serve --port {port} --address 127.0.0.1 --no-show --use-xheaders "
            "--allow-websocket-origin lab.example.org:8080" in text
        )
    # Bokeh reads an origin without a port as port 80: a page on port 80 or 443 has none
    assert proxy_config.origins_for(["lab.example.org"], "0.0.0.0:443") == ["lab.example.org"]


def test_nginx_accepts_the_standalone_configuration(tmp_path):
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if nginx is None:
        pytest.skip("nginx is not installed (make chromium installs it)")
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        proxy_config.config([5101, 5102], "127.0.0.1:8080", standalone=tmp_path),
        encoding="utf-8",
    )
    # -t reads the configuration and opens its files, and starts nothing
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(conf)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stderr
