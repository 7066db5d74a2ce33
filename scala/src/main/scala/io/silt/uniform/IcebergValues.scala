package io.silt.uniform

import java.nio.{ByteBuffer, ByteOrder}

import org.apache.avro.{LogicalTypes, Schema => AvroSchema}
import org.apache.avro.generic.GenericData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Spark internal values as Iceberg writes them: single-value binary form (bounds and partition summaries,
 * the Iceberg spec's appendix D) and the Avro form of a partition tuple's field.
 */
object IcebergValues {

  /** Iceberg's single-value serialization of `v` (a Spark internal value of `dt`); None for a type it has none for here. */
  def binary(v: Any, dt: DataType): Option[ByteBuffer] = Option(v).flatMap { value =>
    def le(size: Int)(put: ByteBuffer => ByteBuffer): ByteBuffer = {
      val b = put(ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN))
      b.flip()
      b
    }
    (dt, value) match {
      case (BooleanType, b: Boolean) => Some(ByteBuffer.wrap(Array[Byte](if (b) 1 else 0)))
      case (ByteType, b: Byte) => Some(le(4)(_.putInt(b.toInt)))
      case (ShortType, s: Short) => Some(le(4)(_.putInt(s.toInt)))
      case (IntegerType | DateType, i: Int) => Some(le(4)(_.putInt(i)))
      case (LongType | TimestampType | TimestampNTZType, l: Long) => Some(le(8)(_.putLong(l)))
      case (FloatType, f: Float) => Some(le(4)(_.putFloat(f)))
      case (DoubleType, d: Double) => Some(le(8)(_.putDouble(d)))
      case (_: DecimalType, d: Decimal) => Some(ByteBuffer.wrap(d.toJavaBigDecimal.unscaledValue.toByteArray))
      case (_: StringType, s: UTF8String) => Some(ByteBuffer.wrap(s.getBytes))
      case (BinaryType, b: Array[Byte]) => Some(ByteBuffer.wrap(b))
      case _ => None
    }
  }

  /** The Avro schema of an identity partition field of `dt`, nullable. */
  def avroType(dt: DataType): AvroSchema = {
    val t = dt match {
      case BooleanType => AvroSchema.create(AvroSchema.Type.BOOLEAN)
      case ByteType | ShortType | IntegerType => AvroSchema.create(AvroSchema.Type.INT)
      case LongType => AvroSchema.create(AvroSchema.Type.LONG)
      case FloatType => AvroSchema.create(AvroSchema.Type.FLOAT)
      case DoubleType => AvroSchema.create(AvroSchema.Type.DOUBLE)
      case DateType => LogicalTypes.date().addToSchema(AvroSchema.create(AvroSchema.Type.INT))
      case TimestampType =>
        val s = LogicalTypes.timestampMicros().addToSchema(AvroSchema.create(AvroSchema.Type.LONG))
        s.addProp("adjust-to-utc", true: java.lang.Boolean)
        s
      case TimestampNTZType =>
        val s = LogicalTypes.timestampMicros().addToSchema(AvroSchema.create(AvroSchema.Type.LONG))
        s.addProp("adjust-to-utc", false: java.lang.Boolean)
        s
      case d: DecimalType =>
        LogicalTypes.decimal(d.precision, d.scale).addToSchema(
          AvroSchema.createFixed(s"decimal_${d.precision}_${d.scale}", null, null, decimalBytes(d.precision)))
      case _: StringType => AvroSchema.create(AvroSchema.Type.STRING)
      case BinaryType => AvroSchema.create(AvroSchema.Type.BYTES)
      case other => throw new IllegalArgumentException(s"no Iceberg partition type for ${other.sql}")
    }
    AvroSchema.createUnion(AvroSchema.create(AvroSchema.Type.NULL), t)
  }

  /** `v` (a Spark internal value of `dt`) as the Avro datum of [[avroType]]. */
  def avroValue(v: Any, dt: DataType, schema: AvroSchema): AnyRef = if (v == null) null else (dt, v) match {
    case (ByteType, b: Byte) => Int.box(b.toInt)
    case (ShortType, s: Short) => Int.box(s.toInt)
    case (d: DecimalType, dec: Decimal) =>
      val fixed = schema.getTypes.get(1)
      val unscaled = dec.toJavaBigDecimal.unscaledValue.toByteArray
      val out = new Array[Byte](fixed.getFixedSize)
      val pad: Byte = if (unscaled.head < 0) -1 else 0
      java.util.Arrays.fill(out, 0, out.length - unscaled.length, pad)
      System.arraycopy(unscaled, 0, out, out.length - unscaled.length, unscaled.length)
      new GenericData.Fixed(fixed, out)
    case (_: StringType, s: UTF8String) => s.toString
    case (BinaryType, b: Array[Byte]) => ByteBuffer.wrap(b)
    case (_, other) => other.asInstanceOf[AnyRef]
  }

  /** An Avro datum of [[avroType]] read back as the Spark internal value of `dt`. */
  def fromAvro(datum: Any, dt: DataType): Any = (dt, datum) match {
    case (_, null) => null
    case (ByteType, i: Integer) => i.toByte
    case (ShortType, i: Integer) => i.toShort
    case (d: DecimalType, f: GenericData.Fixed) =>
      Decimal(new java.math.BigDecimal(new java.math.BigInteger(f.bytes()), d.scale), d.precision, d.scale)
    case (_: StringType, s: CharSequence) => UTF8String.fromString(s.toString)
    case (BinaryType, b: ByteBuffer) =>
      val out = new Array[Byte](b.remaining())
      b.duplicate().get(out)
      out
    case (_, other) => other
  }

  /** The bytes Iceberg's fixed-size decimal of `precision` digits takes. */
  def decimalBytes(precision: Int): Int = {
    var bytes = 1
    while (BigInt(2).pow(8 * bytes - 1) < BigInt(10).pow(precision)) bytes += 1
    bytes
  }
}
