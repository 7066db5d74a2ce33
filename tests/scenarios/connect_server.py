"""A Spark Connect server with Silt on 127.0.0.1:<port> (argv[1]), for clients that have only
pyspark-client: prints READY when it listens, and stops when its stdin closes."""
import sys

from pyspark.sql import SparkSession

import silt

port = sys.argv[1]
spark = silt.configure(SparkSession.builder.master("local[2]")
                       .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
                       .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
                       .config("spark.connect.grpc.binding.address", "127.0.0.1")
                       .config("spark.connect.grpc.binding.port", port)).getOrCreate()
print("READY", flush=True)
sys.stdin.read()
spark.stop()
