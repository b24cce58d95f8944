import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD()
writer = tf.summary.create_file_writer("logs")


@tf.function
def train_step(x, y, epoch, learning_rate):
    optimizer.learning_rate.assign(learning_rate)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    with writer.as_default():
        tf.summary.scalar("loss", loss, step=epoch)
    return loss


dataset = tf.data.Dataset.from_tensor_slices((tf.random.normal([256, 4]), tf.random.normal([256, 1]))).batch(32)
for epoch in range(50):
    learning_rate = 0.1 * 0.95 ** epoch
    for x, y in dataset:
        train_step(x, y, epoch, learning_rate)  # expect: TFG403, TFG403
