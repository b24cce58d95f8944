import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
optimizer = tf.keras.optimizers.Adam()
dataset = tf.data.Dataset.from_tensor_slices((tf.zeros([6400, 784]), tf.zeros([6400]))).batch(64)
mean_loss = tf.keras.metrics.Mean()


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(labels, model(images), from_logits=True))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


history = []
for epoch in range(10):
    mean_loss.reset_state()
    for step, (images, labels) in enumerate(dataset):
        loss = train_step(images, labels)
        mean_loss.update_state(loss)  # accumulated on the device
        if step % 100 == 0:
            print(f"epoch {epoch} step {step} loss {float(loss)}")  # every 100 steps
    history.append(float(mean_loss.result()))  # once per epoch
