import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Embedding(8000, 64), tf.keras.layers.Dense(8000)])
optimizer = tf.keras.optimizers.Adam()
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(inp, tar):
    with tf.GradientTape() as tape:
        loss = loss_fn(tar, model(inp, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def sentences():
    for n in range(1, 10000):
        yield [1] * (n % 40 + 1), [2] * (n % 40 + 1)


examples = tf.data.Dataset.from_generator(
    sentences, output_signature=(tf.TensorSpec([None], tf.int64), tf.TensorSpec([None], tf.int64)))
train_batches = examples.shuffle(20000).padded_batch(64).prefetch(tf.data.AUTOTUNE)

for epoch in range(20):
    for inp, tar in train_batches:
        train_step(inp, tar)  # expect: TFG404
