import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def train_step(x, y, optimizer, loss_fn):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


optimizer = tf.keras.optimizers.SGD(0.01)
loss_fn = tf.keras.losses.MeanSquaredError()
dataset = tf.data.Dataset.from_tensor_slices((tf.random.normal([256, 4]), tf.random.normal([256, 1]))).batch(32)
for epoch in range(50):
    for x, y in dataset:
        train_step(x, y, optimizer, loss_fn)
