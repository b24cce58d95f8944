import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
optimizer = tf.keras.optimizers.Adam()
dataset = tf.data.Dataset.from_tensor_slices((tf.zeros([6400, 784]), tf.zeros([6400]))).batch(64)


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
    for step, (images, labels) in enumerate(dataset):
        loss = train_step(images, labels)
        history.append(loss.numpy())  # expect: TFG408
        print(f"epoch {epoch} step {step} loss {loss}")  # expect: TFG408
