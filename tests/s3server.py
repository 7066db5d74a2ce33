"""A local S3 server for the tests: s3proxy (Maven Central) with its filesystem backend, on 127.0.0.1.

s3proxy 4.1.0 creates objects with `If-None-Match: *` atomically (3.x checked, then wrote: two
racing conditional PUTs could both succeed). Requests are signed (AWS v4) with a test identity.

    server = S3Server.start(tmp_dir)      # fetches the jar with mvn on first use
    conf = server.hadoop_conf()           # the fs.s3a.* settings that point S3A at it
    server.url("bucket", "table")         # s3a://bucket/table
    server.stop()
"""
import shutil
import socket
import subprocess
import time
from pathlib import Path

from conftest import REPO_ROOT

S3PROXY_VERSION = "4.1.0"
BUCKET = "silt-test"
ACCESS_KEY = "silt-access"
SECRET_KEY = "silt-secret-key"


def s3proxy_jar() -> Path:
    """The s3proxy jar in .tools/, fetched from Maven Central with mvn the first time."""
    tools = REPO_ROOT / ".tools"
    jar = tools / f"s3proxy-{S3PROXY_VERSION}-jar-with-dependencies.jar"
    if not jar.is_file():
        if shutil.which("mvn") is None:
            raise RuntimeError("the S3 tests need mvn to fetch s3proxy (apt-get install maven)")
        subprocess.run(["mvn", "-q", "-B", "dependency:copy",
                        f"-Dartifact=org.gaul:s3proxy:{S3PROXY_VERSION}:jar:jar-with-dependencies",
                        f"-DoutputDirectory={tools}"], check=True, stdout=subprocess.DEVNULL)
    return jar


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class S3Server:
    """One s3proxy process serving the folders under `root` as buckets."""

    def __init__(self, root: Path, port: int, process: subprocess.Popen):
        self.root, self.port, self.process = root, port, process
        self.endpoint = f"http://127.0.0.1:{port}"

    @classmethod
    def start(cls, root: Path) -> "S3Server":
        root = Path(root)
        (root / "data" / BUCKET).mkdir(parents=True, exist_ok=True)  # a folder is a bucket
        port = free_port()
        conf = root / "s3proxy.conf"
        conf.write_text("\n".join([
            f"s3proxy.endpoint=http://127.0.0.1:{port}",
            "s3proxy.authorization=aws-v2-or-v4",
            f"s3proxy.identity={ACCESS_KEY}",
            f"s3proxy.credential={SECRET_KEY}",
            "jclouds.provider=filesystem",
            f"jclouds.filesystem.basedir={root / 'data'}",
            "",
        ]))
        log = open(root / "s3proxy.log", "w")
        process = subprocess.Popen(["java", "-Xmx512m", "-jar", str(s3proxy_jar()), "--properties", str(conf)],
                                   stdout=log, stderr=subprocess.STDOUT)
        server = cls(root, port, process)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"s3proxy exited: {(root / 's3proxy.log').read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return server
            except OSError:
                time.sleep(0.2)
        server.stop()
        raise RuntimeError("s3proxy did not start within 60 s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def url(self, *parts: str) -> str:
        return "s3a://" + "/".join((BUCKET,) + parts)

    def local_path(self, *parts: str) -> Path:
        """Where the filesystem backend keeps an object (to inspect what the server holds)."""
        return self.root.joinpath("data", BUCKET, *parts)

    def hadoop_conf(self) -> dict:
        """fs.s3a.* settings for S3A (set them as spark.hadoop.* or on a session's conf)."""
        return {
            "fs.s3a.endpoint": self.endpoint,
            "fs.s3a.endpoint.region": "us-east-1",
            "fs.s3a.path.style.access": "true",
            "fs.s3a.connection.ssl.enabled": "false",
            "fs.s3a.access.key": ACCESS_KEY,
            "fs.s3a.secret.key": SECRET_KEY,
            "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        }

    def storage_options(self) -> dict:
        """The same server for delta-rs (object_store's S3 options)."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": "us-east-1",
            "AWS_ALLOW_HTTP": "true",
            "AWS_S3_ALLOW_UNSAFE_RENAME": "true",
            "AWS_FORCE_PATH_STYLE": "true",
        }

